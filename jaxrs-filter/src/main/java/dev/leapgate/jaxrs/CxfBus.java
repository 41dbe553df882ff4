package dev.leapgate.jaxrs;

import org.apache.cxf.Bus;
import org.apache.cxf.BusFactory;
import org.apache.cxf.buslifecycle.BusLifeCycleListener;
import org.apache.cxf.buslifecycle.BusLifeCycleManager;

/**
 * The optional CXF adapter: the application's gate is closed when the CXF bus that serves it shuts
 * down. JAX-RS tells a feature nothing when the application stops; CXF's servlet shuts its bus
 * down when the servlet is destroyed, and an application on a bus of its own ({@code
 * JAXRSServerFactoryBean}) ends with it. The bus is the thread's default bus while CXF configures
 * the feature. Loaded only where CXF's classes are.
 */
final class CxfBus {

    private CxfBus() {}

    /** Has {@code application}'s gate closed when the bus starting it shuts down; false if there is none. */
    static boolean closeWith(ApplicationGate application) {
        Bus bus = BusFactory.getThreadDefaultBus(false);
        BusLifeCycleManager lifeCycle = bus == null ? null : bus.getExtension(BusLifeCycleManager.class);
        if (lifeCycle == null) {
            return false;
        }
        lifeCycle.registerLifeCycleListener(new BusLifeCycleListener() {
            @Override
            public void initComplete() {}

            @Override
            public void preShutdown() {}

            @Override
            public void postShutdown() {
                application.close();
            }
        });
        return true;
    }
}
