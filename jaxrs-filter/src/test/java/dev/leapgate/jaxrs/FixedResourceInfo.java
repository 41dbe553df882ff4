package dev.leapgate.jaxrs;

import jakarta.ws.rs.container.ResourceInfo;
import java.lang.reflect.Method;

/** What the runtime says a request was matched to: a resource class and one of its methods. */
record FixedResourceInfo(Class<?> getResourceClass, Method getResourceMethod) implements ResourceInfo {}
