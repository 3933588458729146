package org.hyperprof.shell;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Array;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.command.kit.Args;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.Table;
import org.hyperprof.command.kit.UsageException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code hp:config}: the settings every component's Metatype describes, listed, shown and changed
 * so that the change lasts: it is written into the pid's file of the configuration folder
 * ({@link ConfigFolder}) and applied from there.
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=config"})
public class ConfigCommands {
    /** What {@code hp:config} takes: its usage line ({@link HpCommand}) and its {@code @Descriptor}. */
    static final String CONFIG_ARGUMENTS = "[pid [key=value ...]] [--format text|json|csv]";

    private final ConfigFolder folder;
    private final Console console;

    @Activate
    public ConfigCommands(@Reference(name = "folder") ConfigFolder folder) {
        this(folder, Console.system());
    }

    ConfigCommands(ConfigFolder folder, Console console) {
        this.folder = folder;
        this.console = console;
    }

    /** The words of {@code hp:config}: a pid or none, the changes, the format. */
    record Line(String pid, Map<String, String> changes, Table.Format format) {
        static Line parse(String[] argv) throws UsageException {
            Args a = HpCommand.CONFIG.parse(argv);
            List<String> words = a.positional();
            Map<String, String> changes = new TreeMap<>();
            for (String w : words.subList(Math.min(1, words.size()), words.size())) {
                int eq = w.indexOf('=');
                if (eq <= 0) {
                    throw new UsageException("expected key=value after the pid, got '" + w + "'");
                }
                changes.put(w.substring(0, eq), w.substring(eq + 1));
            }
            Table.Format format = Table.Format.of(a.value("--format"));
            if (!changes.isEmpty() && a.value("--format") != null) {
                throw new UsageException("--format is for listing; a change prints one line");
            }
            return new Line(words.isEmpty() ? null : words.get(0), changes, format);
        }
    }

    @Descriptor("list the configurable pids, show one pid's settings, or change them in the configuration folder")
    public void config(@Descriptor(CONFIG_ARGUMENTS) String... args) {
        Guard.run(console, HpCommand.CONFIG.syntax(), args, out -> {
            Line line = Line.parse(args);
            if (line.pid() == null) {
                list(out, line.format());
                return;
            }
            ConfigurablePid pid = folder.pid(line.pid());
            if (line.changes().isEmpty()) {
                show(pid, out, line.format());
            } else {
                change(pid, line.changes(), out);
            }
        });
    }

    private void list(PrintStream out, Table.Format format) {
        Table t = new Table("PID", "NAME", "BUNDLE", "FILE");
        for (ConfigurablePid p : folder.pids()) {
            String file = folder.fileOf(p.pid()).map(f -> f.getFileName().toString()).orElse("-");
            t.row(p.pid(), p.name(), p.bundle(), folder.refusal(p.pid()).map(why -> file + " (not applied: " + why + ")")
                    .orElse(file));
        }
        if (format == Table.Format.TEXT) {
            out.println("configuration folder: " + folder.folder() + " (FILE: the pid's file there)");
        }
        t.print(out, format);
    }

    private void show(ConfigurablePid pid, PrintStream out, Table.Format format) throws IOException {
        Map<String, Object> current = folder.current(pid.pid());
        Object file = current == null ? null : current.get(ConfigFolder.FILE_PROPERTY);
        String from = current == null ? "default"
                : file != null ? Path.of(file.toString()).getFileName().toString() : "configuration admin";
        Table t = new Table("KEY", "TYPE", "DEFAULT", "VALUE", "FROM", "DESCRIPTION");
        for (Setting s : pid.settings()) {
            Object value = current == null ? null : current.get(s.key());
            t.row(s.key(), s.type(), s.defaultText(), value == null ? s.defaultText() : text(value),
                    value == null ? "default" : from, s.description());
        }
        if (format == Table.Format.TEXT) {
            out.println(pid.pid() + " (" + pid.name() + ", bundle " + pid.bundle() + ")");
        }
        t.print(out, format);
    }

    private void change(ConfigurablePid pid, Map<String, String> changes, PrintStream out)
            throws UsageException, IOException {
        // Every word is checked before anything is written: a refused one changes nothing.
        pid.check(changes);
        Path file = folder.write(pid, changes);
        StringBuilder b = new StringBuilder(pid.pid()).append(':');
        changes.forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
        out.println(b.append(" (written to ").append(file).append(", applied)"));
    }

    /** A configured value as text: a list's elements joined by commas. */
    private static String text(Object value) {
        if (!value.getClass().isArray()) {
            return value.toString();
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < Array.getLength(value); i++) {
            b.append(i == 0 ? "" : ",").append(Array.get(value, i));
        }
        return b.toString();
    }
}
