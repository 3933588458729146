package org.hyperprof.shell;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.service.component.ComponentContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

/**
 * Which of Gogo's two consoles starts. The launcher installs both, at a start level after this
 * bundle's: gogo.jline (line editing, history, completion) for an interactive prompt on a terminal,
 * and gogo.shell for everything else: piped command lines and tests, where it reads nothing and
 * gives scripts gogo's own commands, and an interactive session without a terminal (input piped
 * in), which it reads line by line. Two consoles must never read the same input, and a piped run
 * must not pay for JLine's terminal, so this component stops the one not used before its start
 * level is reached. Where only one of them is installed (a container of the user's own) it is left
 * alone. With the JLine console goes {@link InteractivePrompt}, which makes its prompt Hyperprof's;
 * it is enabled only then, so that no other session pays for it.
 */
@Component(service = {}, immediate = true)
public final class ConsoleChoice {
    /** Gogo's JLine console. */
    static final String JLINE = "org.apache.felix.gogo.jline";
    /** Gogo's plain console. */
    static final String PLAIN = "org.apache.felix.gogo.shell";

    @Activate
    public ConsoleChoice(BundleContext context, ComponentContext component) {
        boolean terminal = System.console() != null;
        String unused = unused(CommandLineStops.Mode.of(context.getProperty(CommandLineStops.MODE_PROPERTY), terminal),
                terminal);
        if (unused.equals(PLAIN)) {
            component.enableComponent(InteractivePrompt.class.getName());
        }
        Bundle stopped = installed(context, unused);
        if (stopped != null && installed(context, unused.equals(JLINE) ? PLAIN : JLINE) != null) {
            try {
                // Persistently: a bundle not started yet is then skipped when its start level comes.
                stopped.stop();
            } catch (BundleException | IllegalStateException e) {
                System.err.println("hyperprof: " + unused + " could not be kept from starting (" + e.getMessage()
                        + "); two Gogo consoles may read the same input");
            }
        }
    }

    /** The console a mode does without: JLine needs an interactive session on a terminal. */
    static String unused(CommandLineStops.Mode mode, boolean terminal) {
        return mode == CommandLineStops.Mode.INTERACTIVE && terminal ? PLAIN : JLINE;
    }

    private static Bundle installed(BundleContext context, String symbolicName) {
        for (Bundle b : context.getBundles()) {
            if (symbolicName.equals(b.getSymbolicName())) {
                return b;
            }
        }
        return null;
    }
}
