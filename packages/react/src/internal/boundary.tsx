import { Component, type ErrorInfo, type ReactNode, Suspense, useContext } from "react";
import { GatehouseContext, useStrings } from "../context.ts";
import { invalidateEverything } from "./caches.ts";
import { describeError } from "./errors.ts";
import { AlertIcon } from "./icons.tsx";
import { Button, CardHeader, CardPage, LoadingCard } from "./ui.tsx";

type BoundaryProps = { children: ReactNode; fallback: (error: unknown, retry: () => void) => ReactNode };

class ErrorBoundary extends Component<BoundaryProps, { error: unknown; failed: boolean }> {
  override state = { error: null as unknown, failed: false };

  static getDerivedStateFromError(error: unknown) {
    return { error, failed: true };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    if (typeof console !== "undefined")
      console.error("Gatehouse component failed", error, info.componentStack);
  }

  retry = () => this.setState({ error: null, failed: false });

  override render() {
    return this.state.failed ? this.props.fallback(this.state.error, this.retry) : this.props.children;
  }
}

function ErrorCard({ error, retry }: { error: unknown; retry: () => void }) {
  const s = useStrings();
  const app = useContext(GatehouseContext)?.app;
  const described = describeError(error, s);
  return (
    <CardPage>
      <CardHeader title={s.errorTitle} subtitle={described.message} icon={<AlertIcon />} tone="danger" />
      <Button
        block
        onClick={() => {
          if (app) invalidateEverything(app);
          retry();
        }}
      >
        {s.tryAgain}
      </Button>
    </CardPage>
  );
}

/** Loading and error states around a page: a spinner card while data loads, a retry card if it failed. */
export function PageBoundary({ children, fallback }: { children: ReactNode; fallback?: ReactNode }) {
  return (
    <ErrorBoundary fallback={(error, retry) => <ErrorCard error={error} retry={retry} />}>
      <Suspense fallback={fallback ?? <LoadingCard />}>{children}</Suspense>
    </ErrorBoundary>
  );
}

/** The same for a part of a page: a small inline message instead of a card. */
export function SectionBoundary({ children, fallback }: { children: ReactNode; fallback?: ReactNode }) {
  return (
    <ErrorBoundary fallback={(error, retry) => <InlineError error={error} retry={retry} />}>
      <Suspense fallback={fallback ?? null}>{children}</Suspense>
    </ErrorBoundary>
  );
}

function InlineError({ error, retry }: { error: unknown; retry: () => void }) {
  const s = useStrings();
  const app = useContext(GatehouseContext)?.app;
  return (
    <div className="gh-alert gh-alert-error" role="alert">
      <AlertIcon />
      <div className="gh-alert-body gh-row-actions">
        <span>{describeError(error, s).message}</span>
        <Button
          small
          variant="secondary"
          onClick={() => {
            if (app) invalidateEverything(app);
            retry();
          }}
        >
          {s.tryAgain}
        </Button>
      </div>
    </div>
  );
}
