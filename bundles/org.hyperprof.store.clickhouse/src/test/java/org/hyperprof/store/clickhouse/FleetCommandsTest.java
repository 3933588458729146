package org.hyperprof.store.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.List;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.command.CommandFailure;
import org.hyperprof.api.store.SessionOutbox;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.command.kit.Console;
import org.junit.jupiter.api.Test;

/** hp:fleet's grammar, and what it says with no ClickHouse configured (no server needed). */
class FleetCommandsTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** An outbox holding nothing. */
    private static final SessionOutbox EMPTY = new SessionOutbox() {
        @Override
        public List<StoredSession> pending() {
            return List.of();
        }

        @Override
        public long copy(long session, String table, String prefix, java.io.OutputStream to) {
            return 0;
        }

        @Override
        public boolean release(long session) {
            return false;
        }
    };

    private int run(FleetSettings settings, String... args) {
        try (FleetShipper shipper = new FleetShipper(settings, EMPTY, "test", System.err)) {
            new FleetCommands(shipper, null, Console.of(new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8)), ZoneOffset.UTC).fleet(args);
            return 0;
        } catch (CommandFailure e) {
            return e.status();
        }
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theUsageLineIsTheCommandsDescriptor() throws Exception {
        assertEquals(FleetCommands.FLEET.arguments(), FleetCommands.class.getMethod("fleet", String[].class)
                .getParameters()[0].getAnnotation(Descriptor.class).value());
    }

    @Test
    void aWordItDoesNotKnowOrAnOptionOfAnotherWordIsAUsageError() {
        FleetSettings none = FleetSettings.of(List.of(), "");
        assertEquals(CommandFailure.USAGE, run(none, "tops"));
        assertTrue(err().startsWith("hp:fleet: no such word 'tops'"), err());
        assertEquals(CommandFailure.USAGE, run(none, "top", "--a-hosts", "x"));
        assertEquals(CommandFailure.USAGE, run(none, "top", "functions"));
        assertEquals(CommandFailure.USAGE, run(none, "top", "--mode", "guest"));
        assertTrue(err().contains("--mode takes hypervisor, kernel and user, not 'guest'"), err());
        assertEquals(CommandFailure.USAGE, run(none, "top", "--since", "yesterday"));
        assertEquals(CommandFailure.USAGE, run(none, "diff", "--b-hosts", "a"));
        assertTrue(err().contains("say what group a is"), err());
        assertEquals(CommandFailure.USAGE, run(none));
    }

    @Test
    void eachWordHasItsHelp() {
        assertEquals(0, run(FleetSettings.of(List.of(), ""), "top", "--help"));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("--host-pattern"));
    }

    @Test
    void withNoEndpointTheQueriesSayWhichSettingIsMissingAndTheStatusSaysTheHostIsInNoFleet() {
        FleetSettings none = FleetSettings.of(List.of(), "");
        assertEquals(CommandFailure.FAILED, run(none, "top"));
        assertTrue(err().contains("no ClickHouse endpoint is configured (setting endpoints of pid"
                + " org.hyperprof.fleet"), err());
        assertEquals(0, run(none, "status"));
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("endpoints: none (setting endpoints of pid"
                + " org.hyperprof.fleet)"), out.toString(StandardCharsets.UTF_8));
        assertThrows(IllegalArgumentException.class, () -> FleetSettings.of(List.of(java.net.URI.create(
                "ftp://host/")), ""));
    }
}
