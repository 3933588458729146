package org.hyperprof.shell;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

/** {@code hp:version} (and {@code launch/hyperprof --version}): what runs, for a bug report or a script. */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=version"})
public class VersionCommand {
    private final Console console;
    private final String text;

    @Activate
    public VersionCommand(BundleContext context) {
        this(Console.system(), text(context.getBundle(), context.getBundle(Constants.SYSTEM_BUNDLE_LOCATION)));
    }

    VersionCommand(Console console, String text) {
        this.console = console;
        this.text = text;
    }

    /** One line: Hyperprof's version (the shell bundle's), the framework's and Java's. */
    static String text(Bundle shell, Bundle framework) {
        return "hyperprof " + shell.getVersion() + " (" + framework.getSymbolicName() + " " + framework.getVersion()
                + ", Java " + Runtime.version() + ")";
    }

    @Descriptor("Hyperprof's version, the framework's and Java's")
    public void version(@Descriptor("no arguments") String... args) {
        Guard.run(console, HpCommand.VERSION.syntax(), args, out -> {
            CommandLines.none(HpCommand.VERSION, args);
            out.println(text);
        });
    }
}
