package org.hyperprof.store.duckdb;

import java.util.List;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.command.kit.Args;
import org.hyperprof.command.kit.Completion;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.Syntax;
import org.hyperprof.command.kit.UsageException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code hp:replay ID}: a stored session fed through the pipeline again, to every consumer bound now
 * (a report installed since it was recorded renders it; {@code hp:report --session ID} prints it).
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=replay"})
public final class ReplayCommand {
    static final String REPLAY_ARGUMENTS = "<id>";

    static final Syntax REPLAY = Syntax.of("hp:replay", "feed a stored session to every sample consumer again")
            .before(REPLAY_ARGUMENTS, Completion.SESSION)
            .notes("  The consumers see it start under its own id and end with the books it was recorded with;\n"
                    + "  a consumer that misses samples of the replay is named in the session's notes.");

    private final SessionStore store;
    private final Console console;

    @Activate
    public ReplayCommand(@Reference SessionStore store) {
        this(store, Console.system());
    }

    /** Plain Java and tests. */
    ReplayCommand(SessionStore store, Console console) {
        this.store = store;
        this.console = console;
    }

    @Descriptor("feed a stored session to every sample consumer again")
    public void replay(@Descriptor(REPLAY_ARGUMENTS) String... args) {
        Guard.run(console, REPLAY, args, out -> out.println(replay(REPLAY.parse(args))));
    }

    /** Replays the session the words name; what it did, in a line. */
    private String replay(Args words) throws UsageException, StoreException {
        List<String> ids = words.atMostPositional(1, "one session id").positional();
        if (ids.isEmpty()) {
            throw new UsageException("name the session to replay by its id (hp:sessions lists them)");
        }
        long id = Args.number(ids.get(0), "a session id", 1, Long.MAX_VALUE);
        SessionSummary replayed = store.replay(id).orElseThrow(() -> new IllegalArgumentException(
                "no stored session " + id + " (hp:sessions lists them)"));
        return "replayed session " + id + ": " + replayed.accounting().delivered() + " samples to the consumers"
                + " (hp:report --session " + id + " prints it)";
    }
}
