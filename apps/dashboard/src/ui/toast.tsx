import { createContext, type ReactNode, useCallback, useContext, useState } from "react";
import { errorMessage } from "./hooks.ts";

type Toast = { id: number; kind: "success" | "error"; message: string };
type ToastApi = { success(message: string): void; error(error: unknown): void };

const ToastContext = createContext<ToastApi | null>(null);
let nextId = 1;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const push = useCallback((kind: Toast["kind"], message: string) => {
    const id = nextId++;
    setToasts((all) => [...all, { id, kind, message }]);
    setTimeout(() => setToasts((all) => all.filter((toast) => toast.id !== id)), 4500);
  }, []);
  const [api] = useState<ToastApi>(() => ({
    success: (message) => push("success", message),
    error: (error) => push("error", errorMessage(error)),
  }));
  return (
    <ToastContext.Provider value={api}>
      {children}
      <div className="toasts" aria-live="polite">
        {toasts.map((toast) => (
          <div key={toast.id} className={`toast ${toast.kind}`} role="status" data-kind={toast.kind}>
            <span>{toast.kind === "success" ? "✓" : "!"}</span>
            <span>{toast.message}</span>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error("useToast outside ToastProvider");
  return api;
}
