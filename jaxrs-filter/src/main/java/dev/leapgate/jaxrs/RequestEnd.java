package dev.leapgate.jaxrs;

/**
 * A runtime's own view of the end of a request, where it has one (Jersey's request events, a
 * servlet container's request listener): it finishes the request's {@link RequestTracker} when
 * the request has ended, whichever way it ended. Found in the request's properties under {@link
 * #PROPERTY}, put there by the runtime adapter when the request starts. Without one, the provider
 * finishes requests itself (after the response is written) and the safety net catches the rest.
 */
interface RequestEnd {

    /** The request property (or servlet request attribute) holding the request's {@code RequestEnd}. */
    String PROPERTY = "dev.leapgate.jaxrs.RequestEnd";

    /**
     * Finish {@code tracker} when this request ends. Called once per admission: a servlet request
     * that enters the application again (forwarded to another resource, or dispatched to an error
     * page the application serves) is admitted again, and each of its trackers must be finished.
     */
    void watch(RequestTracker tracker);

    /**
     * Whether this hook may never see the request's end: it hangs on a handler that the
     * application can replace (Vert.x's response end handler). Then the request also holds a lease,
     * and the safety net finishes it after {@code max-request-time} if the hook did not.
     */
    default boolean mayMissTheEnd() {
        return false;
    }

    /**
     * Whether this hook sees the end of the response itself, not of the request's processing, so
     * that a stream of server-sent events holds its slots until it closes (Vert.x's end of the
     * response does; Jersey's end of a request comes when a stream's response has started).
     */
    default boolean seesAStreamsEnd() {
        return false;
    }

    /**
     * Whether the response is still going, neither ended nor its connection closed (Vert.x's
     * response, for a hook that {@link #mayMissTheEnd may miss the end}): the request is in flight
     * (a stream of server-sent events, a long write), and the safety net does not end it; once the
     * response has ended, the safety net ends a request this hook missed.
     */
    default boolean responseGoesOn() {
        return false;
    }
}
