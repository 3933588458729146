package org.hyperprof.api.xenoprof;

/** The Xenoprof type of a domain that has buffers ({@code XENOPROF_DOMAIN_*}). */
public enum DomainType {
    IGNORED, ACTIVE, PASSIVE
}
