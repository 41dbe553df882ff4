/**
 * Leapgate's framework-neutral core: limiters and decisions ({@code dev.leapgate}), rule values
 * ({@code dev.leapgate.rule}), the configuration format ({@code dev.leapgate.config}), HTTP
 * decisions and responses ({@code dev.leapgate.http}), statistics ({@code dev.leapgate.stats}),
 * client addresses ({@code dev.leapgate.net}) and the seam of shared stores ({@code
 * dev.leapgate.store}). The engine ({@code dev.leapgate.internal} and its
 * sub-packages) is not exported: on the module path the compiler keeps applications out of it.
 */
module dev.leapgate.core {
    requires org.slf4j;

    exports dev.leapgate;
    exports dev.leapgate.config;
    exports dev.leapgate.http;
    exports dev.leapgate.net;
    exports dev.leapgate.rule;
    exports dev.leapgate.stats;
    exports dev.leapgate.store;

    uses dev.leapgate.store.WindowStoreProvider;
}
