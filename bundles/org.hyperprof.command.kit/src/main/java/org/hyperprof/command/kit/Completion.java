package org.hyperprof.command.kit;

/** What completes an option's value or a positional word at the interactive prompt. */
public enum Completion {
    /** Nothing to offer: a number, a free text. */
    NONE,
    /** A path on the client's file system. */
    FILE,
    /** An embedded scenario's name (or a path). */
    SCENARIO,
    /** An installed CPU model's cpu.type. */
    CPU_TYPE,
    /** An event of the current host's CPU model. */
    EVENT,
    /** A host option key=value, e.g. vpmu.policy=lazy. */
    HOST_OPTION,
    /** A session id a renderer keeps. */
    SESSION,
    /** A domain id of the current host. */
    DOMAIN,
    /** An installed report renderer's or writer's name. */
    REPORT,
    /** An installed sample source's name. */
    SOURCE,
    /** One of the option's fixed words (its {@link Option#choices()}). */
    CHOICE
}
