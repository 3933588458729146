package org.hyperprof.store.duckdb;

import java.nio.file.Path;
import java.util.List;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.output.OutputFiles;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.command.kit.Args;
import org.hyperprof.command.kit.Completion;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.Syntax;
import org.hyperprof.command.kit.WrittenLine;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code hp:archive ID FILE} writes a stored session as one portable file, and {@code hp:restore FILE}
 * puts it back into a store, on this machine or another (README: "Archives"). The archive is written
 * by {@link OutputFiles}, the one rule for files Hyperprof writes.
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=archive",
        "osgi.command.function=restore"})
public final class ArchiveCommands {
    static final String ARCHIVE_ARGUMENTS = "<id> <file>";

    static final Syntax ARCHIVE = Syntax.of("hp:archive", "write a stored session as one portable file (Parquet"
            + " tables and a manifest in a zip) that hp:restore reads on any machine")
            .before(ARCHIVE_ARGUMENTS, Completion.SESSION)
            .notes("  The archive holds the session's rows only: its names are resolved already, so it is reported\n"
                    + "  where neither the scenario nor the binaries are. A file is written whole or not at all (an\n"
                    + "  existing one keeps its mode); a FIFO or /dev/stdout is streamed into. The folder must exist.");

    static final String RESTORE_ARGUMENTS = "<file>";

    static final Syntax RESTORE = Syntax.of("hp:restore", "put an archived session (hp:archive) into the store,"
            + " with its id").before(RESTORE_ARGUMENTS, Completion.FILE)
            .notes("  All its rows or none. A session of that id already stored is refused (hp:delete ID first);\n"
                    + "  so is an archive of a newer format or schema, and a damaged one (the message names the entry).");

    private final SessionStore store;
    private final OutputFiles files;
    private final Console console;

    @Activate
    public ArchiveCommands(@Reference SessionStore store, @Reference OutputFiles files) {
        this(store, files, Console.system());
    }

    /** Plain Java and tests. */
    ArchiveCommands(SessionStore store, OutputFiles files, Console console) {
        this.store = store;
        this.files = files;
        this.console = console;
    }

    @Descriptor("write a stored session as one portable file that hp:restore reads on any machine")
    public void archive(@Descriptor(ARCHIVE_ARGUMENTS) String... args) {
        Guard.run(console, ARCHIVE, args, out -> {
            List<String> words = ARCHIVE.parse(args).exactlyPositional(2, "name the session (hp:sessions lists them)"
                    + " and the file, e.g. hp:archive 42 /tmp/session-42.zip").positional();
            long id = Args.sessionId(words.get(0));
            Path target = TypedPath.of(words.get(1));
            // The id is checked before the target is touched.
            out.println(WrittenLine.of(files.write(target, store.archive(id)), "archived", "session " + id));
        });
    }

    @Descriptor("put an archived session (hp:archive) into the store, with its id")
    public void restore(@Descriptor(RESTORE_ARGUMENTS) String... args) {
        Guard.run(console, RESTORE, args, out -> {
            List<String> words = RESTORE.parse(args)
                    .exactlyPositional(1, "name the archive to restore, e.g. hp:restore /tmp/session-42.zip")
                    .positional();
            StoredSession s = store.restore(TypedPath.of(words.get(0)));
            out.println("restored session " + s.id() + " (" + s.hostId() + ", " + s.source() + ", " + s.what() + ", "
                    + s.samples() + " samples)");
        });
    }
}
