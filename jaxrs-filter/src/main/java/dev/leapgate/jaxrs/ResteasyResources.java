package dev.leapgate.jaxrs;

import jakarta.ws.rs.core.Application;
import jakarta.ws.rs.core.Configuration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.jboss.resteasy.spi.ResourceFactory;
import org.jboss.resteasy.spi.ResteasyDeployment;
import org.jboss.resteasy.spi.ResteasyProviderFactory;

/**
 * The optional RESTEasy adapter for the root resources: the classes RESTEasy deploys from its own
 * settings ({@code resteasy.resources}, its scanning, resource factories, singletons) rather than
 * from an {@code Application}. The provider walks the locators of every root resource at the start
 * ({@link SubResources}), but RESTEasy shows a {@code DynamicFeature} only the root resources with
 * resource methods, and with no {@code Application} subclass there is none to ask: a root with
 * locators alone would go unwalked, and its annotated sub-resources refused (500).
 *
 * <p>RESTEasy configures features while its deployment starts, before it registers the resources,
 * with the deployment among its context data; its lists are complete by then. Used only when the
 * configuration is RESTEasy's own (another runtime with RESTEasy's client on its class path is not
 * asked). A JNDI resource ({@code resteasy.jndi.resources}) names no class before it is looked up,
 * so it is not walked: an annotated sub-resource below it is refused as before
 * ({@link AnnotationRules#reached}).
 */
final class ResteasyResources {

    private ResteasyResources() {}

    /** The root resource classes of the RESTEasy deployment being started, or none if there is none. */
    @SuppressWarnings("deprecation") // getSingletons(): deprecated in Jakarta REST 3.1, still served
    static List<Class<?>> of(Configuration configuration) {
        if (!(configuration instanceof ResteasyProviderFactory factory)) {
            return List.of();
        }
        ResteasyDeployment deployment = factory.getContextData(ResteasyDeployment.class);
        if (deployment == null) {
            return List.of();
        }
        List<Class<?>> classes = new ArrayList<>();
        addAll(classes, deployment.getActualResourceClasses());
        load(classes, deployment.getResourceClasses());
        Application application = deployment.getApplication();
        // As RESTEasy decides: scanned classes count only when the Application registers nothing.
        boolean scanning =
                application == null || (isEmpty(application.getClasses()) && isEmpty(application.getSingletons()));
        if (scanning) {
            load(classes, deployment.getScannedResourceClasses());
            if (deployment.getScannedResourceClassesWithBuilder() != null) {
                deployment.getScannedResourceClassesWithBuilder().values().forEach(names -> load(classes, names));
            }
        }
        if (deployment.getResources() != null) {
            deployment.getResources().forEach(resource -> classes.add(resource.getClass()));
        }
        if (deployment.getResourceFactories() != null) {
            for (ResourceFactory resourceFactory : deployment.getResourceFactories()) {
                Class<?> scannable = resourceFactory.getScannableClass();
                if (scannable != null) {
                    classes.add(scannable);
                }
            }
        }
        return classes;
    }

    @SuppressWarnings("rawtypes") // RESTEasy's own declaration: List<Class>
    private static void addAll(List<Class<?>> classes, List<Class> found) {
        if (found != null) {
            for (Class c : found) {
                classes.add(c);
            }
        }
    }

    /**
     * Loads classes named in RESTEasy's settings as RESTEasy does (the thread's context class
     * loader); a name that does not load is RESTEasy's to report, when it registers it.
     */
    private static void load(List<Class<?>> classes, List<String> names) {
        if (names == null) {
            return;
        }
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        for (String name : names) {
            try {
                classes.add(Class.forName(name.trim(), false, loader));
            } catch (ClassNotFoundException | LinkageError e) {
                // RESTEasy fails the deployment with its own message right after.
            }
        }
    }

    private static boolean isEmpty(Collection<?> collection) {
        return collection == null || collection.isEmpty();
    }
}
