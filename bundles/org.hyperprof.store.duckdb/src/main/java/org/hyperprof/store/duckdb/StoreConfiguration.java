package org.hyperprof.store.duckdb;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** The session store's settings, under Configuration Admin pid {@value SessionStoreComponent#PID}. */
@ObjectClassDefinition(name = "Hyperprof session store",
        description = "Every profiling session is kept in one DuckDB file, with its books and notes.")
public @interface StoreConfiguration {

    @AttributeDefinition(name = "Store file",
            description = "The DuckDB file sessions are kept in (made with mode 0600, its folder 0700, when"
                    + " missing). ${user.home} and a leading ~ stand for the user's home folder.")
    String path() default "${user.home}/.hyperprof/store.duckdb";

    @AttributeDefinition(name = "Enabled", description = "Whether sessions are stored at all.")
    boolean enabled() default true;

    @AttributeDefinition(name = "Host identity",
            description = "The name this host's sessions are stored under. Empty: the host name.")
    String host_id() default "";

    @AttributeDefinition(name = "Lock wait (ms)",
            description = "How long a write or a query waits for another process's lock on the store file.",
            min = "0")
    int lock_wait_ms() default 10000;

    @AttributeDefinition(name = "Retention: sessions kept",
            description = "Keep at most this many sessions, the newest: after each session is stored the oldest"
                    + " beyond it are deleted. 0: no limit. A running session, and one the fleet's outbox has not"
                    + " shipped, is never deleted.", min = "0")
    int retention_count() default 0;

    @AttributeDefinition(name = "Retention: age",
            description = "Delete sessions started longer ago than this (90s, 30m, 12h, 30d) after each session"
                    + " is stored. Empty: no limit. A running session, and one the fleet's outbox has not shipped,"
                    + " is never deleted.")
    String retention_age() default "";

    @AttributeDefinition(name = "Checkpoint interval (s)",
            description = "A session running longer than this writes its rows so far, again at each interval,"
                    + " so that a process killed mid-session leaves them stored. 0: never.", min = "0")
    int checkpoint_interval() default 60;
}
