/** Probes and metrics: served to the cluster's direct connections, with no key (see installEdge). */
export const PROBES = /^\/(health\/(live|ready)|metrics)(\?|$)/;
/** The same by the route the router matched, which decodes the path first (`/%6Detrics` is `/metrics` to it). */
export const PROBE_ROUTES = new Set(['/health/live', '/health/ready', '/metrics']);
