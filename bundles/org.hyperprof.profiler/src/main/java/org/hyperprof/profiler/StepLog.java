package org.hyperprof.profiler;

import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofOp;

/**
 * What one opcontrol step prints, and the hypercalls it makes as its domain. A failing hypercall
 * prints the real return code ({@code -1 (EPERM, Operation not permitted)}) and the hypervisor's
 * explanation: the state, what the call expected, and the next step with the domain that takes it.
 */
final class StepLog {

    /** The step cannot go on; what happened is already in the log. */
    static final class StepFailed extends Exception {
        private static final long serialVersionUID = 1L;

        StepFailed() {
            super(null, null, false, false);
        }
    }

    private static final String NL = System.lineSeparator();

    private final Xenoprof xenoprof;
    private final int domid;
    private final StringBuilder out = new StringBuilder();
    private boolean failed;

    StepLog(Xenoprof xenoprof, int domid) {
        this.xenoprof = xenoprof;
        this.domid = domid;
    }

    void line(String text) {
        out.append(text).append(NL);
    }

    void note(String text) {
        line("note: " + text);
    }

    /** Marks the step failed with a message (a misstep found before any hypercall, or a local one). */
    StepFailed fail(String text) {
        failed = true;
        line(text);
        return new StepFailed();
    }

    /** Issues a hypercall; on a negative result logs it with the explanation and throws. */
    long call(XenoprofOp op, Object arg, String argText) throws StepFailed {
        long r = callTolerant(op, arg, argText);
        if (r < 0) {
            throw new StepFailed();
        }
        return r;
    }

    /** Issues a hypercall; a negative result is logged with the explanation and returned. */
    long callTolerant(XenoprofOp op, Object arg, String argText) {
        return issue(op, arg, argText, true);
    }

    /**
     * Issues a hypercall whose failure the driver tolerates without failing the step (a refused
     * call-trace depth): a negative result is logged with the explanation and returned.
     */
    long callOptional(XenoprofOp op, Object arg, String argText) {
        return issue(op, arg, argText, false);
    }

    private long issue(XenoprofOp op, Object arg, String argText, boolean failsStep) {
        String call = "HYPERVISOR_xenoprof_op(" + op.cName() + (argText == null ? "" : ", " + argText) + ")";
        long r;
        try {
            r = xenoprof.hypercall(domid, op, arg);
        } catch (RuntimeException e) {
            failed = true;
            line("  " + call + " did not return: the hypervisor raised " + e);
            line("    the hypervisor bundle failed inside " + op.cName() + "; this is a defect to report, not a misstep");
            return -Errno.EFAULT.value();
        }
        if (r >= 0) {
            line("  " + call + " = " + r);
            return r;
        }
        failed |= failsStep;
        line("  " + call + " = " + describe(r));
        String explanation;
        try {
            explanation = xenoprof.explain(domid, op, r);
        } catch (RuntimeException e) {
            explanation = "(the hypervisor could not explain the result: " + e + ")";
        }
        if (explanation != null && !explanation.isBlank()) {
            for (String l : explanation.strip().split("\\R")) {
                line("    " + l);
            }
        }
        return r;
    }

    /** A hypercall result as Xen's callers see it: {@code -1 (EPERM, Operation not permitted)}. */
    static String describe(long result) {
        if (result >= 0) {
            return Long.toString(result);
        }
        Errno e = Errno.ofResult(result);
        return result + (e == null ? " (unknown error)" : " (" + e.name() + ", " + e.text() + ")");
    }

    boolean failed() {
        return failed;
    }

    String text() {
        return out.toString().stripTrailing();
    }
}
