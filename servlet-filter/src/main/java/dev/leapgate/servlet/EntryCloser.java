package dev.leapgate.servlet;

import dev.leapgate.Entry;
import dev.leapgate.http.HttpGate;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletResponse;

/**
 * Closes the entry of an asynchronous request when it completes, times out or fails, so that its
 * concurrency slot is released and its response time recorded then, not when the first dispatch
 * returns. {@link Entry#close()} is idempotent, so the completion that follows an error changes
 * nothing.
 */
final class EntryCloser implements AsyncListener {

    private final Entry entry;

    EntryCloser(Entry entry) {
        this.entry = entry;
    }

    @Override
    public void onComplete(AsyncEvent event) {
        HttpGate.complete(
                entry,
                event.getSuppliedResponse() instanceof HttpServletResponse response
                        ? response.getStatus()
                        : HttpGate.NO_RESPONSE);
    }

    /**
     * Nothing yet: the completion that follows a timeout records it. An application's listener may
     * answer the timeout itself (a long poll's "no news yet") and complete: a response, counted by
     * its status; one that nobody answers is completed by the container with an error (500).
     */
    @Override
    public void onTimeout(AsyncEvent event) {}

    @Override
    public void onError(AsyncEvent event) {
        HttpGate.complete(entry, HttpGate.NO_RESPONSE);
    }

    /** Listeners are dropped when the request goes asynchronous again: stay registered. */
    @Override
    public void onStartAsync(AsyncEvent event) {
        event.getAsyncContext().addListener(this);
    }
}
