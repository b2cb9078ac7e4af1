/**
 * How stale a replica's access caches may be. Verified tokens, active policies and group member
 * lists are dropped when a write announces a change to them (this server's own writes at once,
 * other replicas' through the store's notifications), and in any case once they are older than
 * ACCESS_CACHE_MAX_AGE_MS: a revocation, suspension, policy or membership change made on another
 * replica takes effect here within that bound even when its notification never arrives.
 */
export const ACCESS_CACHE_MAX_AGE_MS = 5_000

/** A monotonic clock in milliseconds (the wall clock may jump; a cache's age must not). */
export const monotonicMs = (): number => performance.now()
