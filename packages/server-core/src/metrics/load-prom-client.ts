import { loadOptionalDependency } from "../core/optional-dependency.js";

/** prom-client, loaded when a server's metrics are first made (not when the core is imported). */
export const loadPromClient = () => loadOptionalDependency<typeof import("prom-client")>("prom-client", { feature: "metrics (enableMetrics)" });
