package dev.leapgate.net;

/**
 * Which forwarding header a {@link ClientIpResolver} reads when the peer is a trusted proxy. Only
 * one header is ever walked for a request: splicing entries of one header into the chain of the
 * other would let a client slip forged hops in through whichever header its proxy does not manage.
 *
 * <p>Choose the header your proxies write. A proxy passes on, untouched, any header it does not
 * manage itself, and the client controls that header completely. nginx, HAProxy and most cloud load
 * balancers write {@code X-Forwarded-For} and pass a client's {@code Forwarded} through: behind them
 * {@link #PREFER_FORWARDED} lets a client choose its own address by sending {@code Forwarded:
 * for=198.51.100.1}. Use {@link #X_FORWARDED_FOR} there, or have the proxy overwrite {@code
 * Forwarded}.
 */
public enum ForwardingHeader {

    /** Only {@code Forwarded} (RFC 7239); {@code X-Forwarded-For} is ignored. */
    FORWARDED,

    /** Only {@code X-Forwarded-For}; {@code Forwarded} is ignored. */
    X_FORWARDED_FOR,

    /**
     * {@code Forwarded} if its rightmost element (the one written by the proxy nearest to this
     * server) is well-formed and has a {@code for} parameter; otherwise {@code X-Forwarded-For}.
     * Safe only if every trusted proxy writes or strips {@code Forwarded}: see the class comment.
     */
    PREFER_FORWARDED
}
