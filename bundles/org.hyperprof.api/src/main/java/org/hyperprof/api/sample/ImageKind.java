package org.hyperprof.api.sample;

/** What an image is, for the hypervisor / kernel / user split of reports. */
public enum ImageKind {
    /** The hypervisor image ({@code xen-syms}). */
    HYPERVISOR,
    /** A kernel image ({@code vmlinux}). */
    KERNEL,
    /** A loadable kernel module. */
    MODULE,
    /** A user-space executable or shared object. */
    USER,
    /** A PC that no mapping of the domain covers. */
    UNKNOWN;

    /** The split reports print: hypervisor, kernel (modules included) or user. */
    public String split() {
        return switch (this) {
            case HYPERVISOR -> "hypervisor";
            case KERNEL, MODULE -> "kernel";
            case USER -> "user";
            case UNKNOWN -> "unknown";
        };
    }
}
