package org.hyperprof.study;

import java.util.List;

/** What a study found, variant by variant. */
final class Results {
    private Results() {
    }

    /**
     * One guest's profile under one variant.
     *
     * @param domid   the domain
     * @param name    its name
     * @param source  whose samples make its profile: {@code own} (its own profiler), {@code xenoprof}
     *                (the system-wide session), or {@code none}
     * @param samples samples in its profile (outside the hypervisor, on the counter compared)
     * @param event   the event of the counter compared, or empty
     * @param guestOnly error against truth A (guest only), or null when not computable
     * @param withHypervisor error against truth B (guest plus hypervisor work on its behalf), or null
     */
    record Guest(int domid, String name, String source, long samples, String event, ProfileError guestOnly,
            ProfileError withHypervisor) {
    }

    /**
     * One variant's run.
     *
     * @param variant  the variant
     * @param failure  why the run failed (one line), or null when it ran
     * @param overhead the host-wide figures, null when it failed
     * @param lost     samples lost (buffers full), summed over the run's sessions, guest rings included
     * @param guests   every domain's profile, in the host's order
     * @param notes    things the reader should know (a session that did not end, samples the study missed)
     */
    record Run(Variant variant, String failure, Overhead overhead, long lost, List<Guest> guests,
            List<String> notes) {

        Run {
            guests = List.copyOf(guests);
            notes = List.copyOf(notes);
        }

        static Run failed(Variant variant, String failure) {
            return new Run(variant, failure, null, 0, List.of(), List.of());
        }

        boolean ok() {
            return failure == null;
        }
    }

    /**
     * The whole study.
     *
     * @param scenario the scenario's name
     * @param seed     its seed, or null when the host does not report it
     * @param ms       simulated milliseconds per run
     * @param runs     one per variant, in the order run
     */
    record Study(String scenario, Long seed, long ms, List<Run> runs) {
        Study {
            runs = List.copyOf(runs);
        }
    }
}
