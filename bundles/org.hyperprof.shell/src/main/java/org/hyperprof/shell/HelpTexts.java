package org.hyperprof.shell;

/**
 * The longer help texts {@link HpCommand} entries share or that are too long to sit in the enum.
 * Constants, so an enum constant may name them (an enum cannot read its own static fields while
 * its constants are built).
 */
final class HelpTexts {
    /** What Ctrl-C and SIGTERM do to a run (hp:run, hp:profile). */
    static final String STOPPING =
            "  Ctrl-C (or SIGTERM) stops the run at its next step: the samples taken are kept and the\n"
            + "  books printed. Piped (launch/hyperprof 'cmd' ...) hyperprof then exits, 130 (143 after\n"
            + "  SIGTERM), without running the command lines after it; at the g! prompt the prompt returns.";

    /** opcontrol's actions and options, as the profiler's opcontrol takes them. */
    static final String OPCONTROL = "  actions, one per call:\n"
            + "    --init            load the driver: XENOPROF_init\n"
            + "    --start-daemon    set up the counters and buffers and start the daemon\n"
            + "    --start           start sampling (the primary makes the start hypercall)\n"
            + "    --stop            stop sampling and flush the buffers\n"
            + "    --dump            drain this domain's buffers now\n"
            + "    --shutdown        stop, drain and end the daemon; the primary's shutdown ends the session\n"
            + "    --deinit          unload the driver (the primary gives up its role: XENOPROF_shutdown)\n"
            + "    --status          the daemon's state and Xenoprof's\n"
            + "    --reset           clear this domain's collected samples\n"
            + "  Hyperprof simulation controls, not real opcontrol options:\n"
            + "    --hold            the daemon stops reading its buffers (a stalled daemon): they fill up and\n"
            + "                      Xen counts the samples that do not fit as lost\n"
            + "    --release         a held daemon reads again and drains at once\n"
            + "  options of --start-daemon:\n"
            + "    --event=EVENT:count[:um[:kernel[:user]]]   repeatable; primary only\n"
            + "    --active-domains=0,1         domains to profile actively (primary only)\n"
            + "    --passive-domains=2,3        domains the primary profiles passively (alias --domains)\n"
            + "    --passive-images=k2,k3       each passive domain's kernel image, in that order: an image\n"
            + "                                 name of the domain or a symbol file (alias --domains-images)\n"
            + "    --callgraph=N                call traces up to N return addresses per sample (primary)\n"
            + "    --xen=<xen-syms> --vmlinux=<vmlinux> --no-vmlinux   the images\n"
            + "    --buffer-size=N              slots per vCPU buffer to ask Xen for (the driver asks for 16)\n"
            + "  Without an action, --active-domains=... and --passive-domains=... only write those driver\n"
            + "  files. Domain lists and --callgraph are for the primary (the hardware domain); the other\n"
            + "  active domains run --start-daemon without them, and a passive domain runs nothing.";

    /**
     * The whole multi-domain workflow in one command, on the embedded xen-multi-domain host: dom0 and
     * dom1 active, the PV dom2 and the HVM dom3 passive with their own kernels, dom4 unlisted.
     */
    static final String MULTI_DOMAIN_COMMAND = "hp:profile --scenario xen-multi-domain --domains 0,1 --passive 2,3"
            + " --passive-images vmlinux-syms-2.6.18-53.el5xen,vmlinux-2.6.24-19-generic --callgraph 6";

    /** The example with what it shows, for hp:commands and hp:profile --help. */
    static final String MULTI_DOMAIN = "  Every role at once on the xen-multi-domain host (dom0 and dom1 active, the PV dom2 and\n"
            + "  the HVM dom3 passive with their kernels, dom4 unlisted), with call traces 6 deep:\n"
            + "    " + MULTI_DOMAIN_COMMAND + "\n"
            + "  prints the merged report of all domains, then each domain's own, then the accounting.";

    private HelpTexts() {
    }
}
