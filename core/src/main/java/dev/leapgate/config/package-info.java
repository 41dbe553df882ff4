/**
 * Leapgate's configuration format, one set of properties-style keys for a {@code .properties}
 * file and for {@code web.xml} init-params, read by {@link dev.leapgate.config.ConfigParser} into
 * immutable values ({@link dev.leapgate.config.LeapgateConfig}, {@link dev.leapgate.rule.RuleSet}).
 * Every problem of an input is reported at once in a {@link
 * dev.leapgate.config.ConfigException}. {@code CONFIGURATION.md} at the repository root is the
 * reference of every key.
 */
package dev.leapgate.config;
