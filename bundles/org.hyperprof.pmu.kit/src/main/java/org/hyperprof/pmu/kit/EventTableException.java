package org.hyperprof.pmu.kit;

import java.io.IOException;

/** A model's event table resource is malformed; names the file and line. */
public class EventTableException extends IOException {
    private static final long serialVersionUID = 1L;
    private final String file;
    private final int line;

    public EventTableException(String file, int line, String message) {
        super(file + ":" + line + ": " + message);
        this.file = file;
        this.line = line;
    }

    public String file() {
        return file;
    }

    public int line() {
        return line;
    }
}
