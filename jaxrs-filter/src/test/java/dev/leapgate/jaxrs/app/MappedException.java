package dev.leapgate.jaxrs.app;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;

/** An exception the application maps to 409. */
public class MappedException extends RuntimeException {

    public MappedException() {
        super("mapped", null, false, false);
    }

    /** Maps {@link MappedException}; registered explicitly. */
    public static class Mapper implements ExceptionMapper<MappedException> {
        @Override
        public Response toResponse(MappedException exception) {
            return Response.status(409).entity("conflict").build();
        }
    }
}
