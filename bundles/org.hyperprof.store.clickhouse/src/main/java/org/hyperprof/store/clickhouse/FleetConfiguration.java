package org.hyperprof.store.clickhouse;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.AttributeType;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** The fleet store's settings, under Configuration Admin pid {@value FleetShipper#PID}. */
@ObjectClassDefinition(name = "Hyperprof fleet store (ClickHouse)",
        description = "Ships every stored session to ClickHouse over its HTTP interface; hp:fleet queries the"
                + " fleet's sessions as one.")
public @interface FleetConfiguration {

    @AttributeDefinition(name = "Endpoints",
            description = "ClickHouse HTTP(S) interfaces, e.g. http://127.0.0.1:8123: one per shard. A host's"
                    + " sessions all go to one of them (chosen by its host.id), the queries to the first. Empty:"
                    + " nothing is shipped, sessions stay in the local outbox.")
    String[] endpoints() default {};

    @AttributeDefinition(name = "Database", description = "The ClickHouse database of the fleet's tables.")
    String database() default "hyperprof";

    @AttributeDefinition(name = "Cluster",
            description = "The cluster (the servers' remote_servers) the queries read across, through Distributed"
                    + " tables named <table>_all. Empty: the first endpoint's tables alone.")
    String cluster() default "";

    @AttributeDefinition(name = "User", description = "The ClickHouse user.")
    String user() default "default";

    /** Key {@code .password}: a private property (the leading dot), never made a service property. */
    @AttributeDefinition(name = "Password", description = "The user's password: never printed or logged.",
            type = AttributeType.PASSWORD)
    String _password() default "";

    @AttributeDefinition(name = "CA certificate",
            description = "A PEM file of the certificate authority an https:// endpoint's certificate is checked"
                    + " against. Empty: the JVM's trusted authorities.")
    String ca_file() default "";

    @AttributeDefinition(name = "Sources shipped",
            description = "The sources whose sessions ship (simulator, perf.data, ...). Empty: every source.")
    String[] ship_sources() default {};

    @AttributeDefinition(name = "Ship study runs",
            description = "Whether the sessions hp:study makes ship as well.")
    boolean ship_studies() default false;

    @AttributeDefinition(name = "Outbox size (sessions)",
            description = "At most this many sessions wait in the local outbox; beyond it the oldest are let go"
                    + " (kept locally, never shipped), and each is said.", min = "1")
    int outbox_max_sessions() default 10000;

    @AttributeDefinition(name = "Retry interval (s)",
            description = "How long the shipper waits after the server could not be reached before it tries"
                    + " again.", min = "1")
    int retry_interval() default 30;

    @AttributeDefinition(name = "Request timeout (ms)",
            description = "How long a request to ClickHouse may take (connecting, and each reply).", min = "100")
    int request_timeout_ms() default 30000;

    @AttributeDefinition(name = "Retention (days)",
            description = "After each shipment, the daily partitions older than this many days are dropped."
                    + " 0: nothing is dropped.", min = "0")
    int retention_days() default 0;
}
