package dev.leapgate.servlet;

import dev.leapgate.Entry;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletResponse;
import java.util.concurrent.TimeoutException;

/**
 * Closes the entry of an asynchronous request when it completes, times out or fails, so that its
 * concurrency slot is released and its response time recorded then, not when the first dispatch
 * returns. {@link Entry#close()} is idempotent, so the completion that usually follows a timeout
 * or an error changes nothing.
 */
final class EntryCloser implements AsyncListener {

    private final Entry entry;

    EntryCloser(Entry entry) {
        this.entry = entry;
    }

    @Override
    public void onComplete(AsyncEvent event) {
        if (event.getSuppliedResponse() instanceof HttpServletResponse response && LeapgateFilter.failed(response)) {
            entry.fail();
        }
        entry.close();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        entry.fail(new TimeoutException("asynchronous request timed out"));
        entry.close();
    }

    @Override
    public void onError(AsyncEvent event) {
        Throwable error = event.getThrowable();
        entry.fail(error != null ? error : new IllegalStateException("asynchronous request failed"));
        entry.close();
    }

    /** Listeners are dropped when the request goes asynchronous again: stay registered. */
    @Override
    public void onStartAsync(AsyncEvent event) {
        event.getAsyncContext().addListener(this);
    }
}
