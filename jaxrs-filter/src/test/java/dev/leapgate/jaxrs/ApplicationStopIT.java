package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.jaxrs.app.GateLookupResource;
import dev.leapgate.testing.RecordingStoreProvider;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The application's gate is closed when the application stops, on the runtime under test ({@link
 * JaxrsServer}): its shared store (a Redis client, its connection and threads) does not outlive
 * an undeployment. Jersey reports its end to the provider; RESTEasy and CXF do not, and the
 * servlet context's end ({@link ServletRequests}) closes the gate there, also when the first
 * request that built it was one to the status path, answered before any resource is matched.
 */
class ApplicationStopIT {

    @ParameterizedTest
    @ValueSource(strings = {"/gate", "/leapgate/status"})
    void stoppingTheApplication_closesTheStoreItsGateOpened(String firstRequest) {
        int opened = RecordingStoreProvider.OPENED.size();
        JaxrsServer.App app = new JaxrsServer.App(GateLookupResource.class)
                .property(ProviderSettings.CLOCK, new ManualClock())
                .property("leapgate.store", "recording://test")
                .property("leapgate.status-path", "/leapgate/status")
                .property("leapgate.rule.gate.match", "GET /gate")
                .property("leapgate.rule.gate.limit", "10/1m");
        JaxrsServer server = JaxrsServer.start(app);
        List<RecordingStoreProvider.Store> stores;
        try {
            assertThat(server.get(firstRequest).statusCode()).isEqualTo(200);
            stores = RecordingStoreProvider.OPENED.subList(opened, RecordingStoreProvider.OPENED.size());
            assertThat(stores).as("stores the application's gate opened").hasSize(1);
            assertThat(stores.get(0).closed).as("while the application runs").isFalse();
        } finally {
            server.close();
        }
        assertThat(stores.get(0).closed)
                .as("the store, once the application stopped (runtime %s)", JaxrsServer.runtime())
                .isTrue();
    }

    /**
     * The gate built at the start, before any request ({@code LeapgateFeature.gate(configuration)}
     * from the application's start-up code, to bind metrics, say), and no request ever comes: the
     * application's stop closes it all the same.
     */
    @Test
    void aGateBuiltBeforeAnyRequest_isClosedWhenTheApplicationStops() {
        int opened = RecordingStoreProvider.OPENED.size();
        JaxrsServer.App app = new JaxrsServer.App(GateLookupResource.class)
                .property(ProviderSettings.CLOCK, new ManualClock())
                .property("leapgate.store", "recording://test")
                .property("leapgate.rule.gate.match", "GET /gate")
                .property("leapgate.rule.gate.limit", "10/1m");
        JaxrsServer server = JaxrsServer.start(app);
        List<RecordingStoreProvider.Store> stores;
        try {
            assertThat(server.gate()).as("the gate, built without a request").isNotNull();
            stores = RecordingStoreProvider.OPENED.subList(opened, RecordingStoreProvider.OPENED.size());
            assertThat(stores).as("stores the application's gate opened").hasSize(1);
            assertThat(stores.get(0).closed).as("while the application runs").isFalse();
        } finally {
            server.close();
        }
        assertThat(stores.get(0).closed)
                .as("the store, once the application stopped (runtime %s)", JaxrsServer.runtime())
                .isTrue();
    }
}
