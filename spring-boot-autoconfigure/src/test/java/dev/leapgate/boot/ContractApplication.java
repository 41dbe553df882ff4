package dev.leapgate.boot;

import dev.leapgate.testing.AdapterContract;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The application of the adapter contract ({@code dev.leapgate.testing.AdapterContract}) in Spring
 * MVC, and the README's login endpoint.
 */
@SpringBootApplication
class ContractApplication {

    @RestController
    static class Endpoints {
        @GetMapping("/ok")
        String ok() {
            return "ok";
        }

        @GetMapping("/own-fields")
        ResponseEntity<String> ownRateLimitFields() {
            return ResponseEntity.ok()
                    .header("RateLimit-Policy", AdapterContract.OWN_POLICY)
                    .header("RateLimit", AdapterContract.OWN_RATE_LIMIT)
                    .body("ok");
        }

        @GetMapping("/server-error")
        ResponseEntity<String> serverError() {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body("unavailable");
        }

        @GetMapping("/throws")
        String unhandledException() {
            throw new IllegalStateException("unhandled, on purpose");
        }

        /** The login endpoint of the README's example. */
        @PostMapping("/login")
        String login() {
            return "welcome";
        }

        @GetMapping("/not-found")
        String handledException() {
            throw new ResponseStatusException(HttpStatus.NOT_FOUND, "no such item");
        }
    }
}
