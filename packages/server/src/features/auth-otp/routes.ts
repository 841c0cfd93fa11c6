import type { AnyRoute } from "../../http/route.ts";

export const otpRoutes: AnyRoute[] = [];
