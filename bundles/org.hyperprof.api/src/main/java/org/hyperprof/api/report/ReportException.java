package org.hyperprof.api.report;

/** A report cannot be rendered (no such session, no samples yet, unknown option); says what to do. */
public class ReportException extends Exception {
    private static final long serialVersionUID = 1L;

    public ReportException(String message) {
        super(message);
    }
}
