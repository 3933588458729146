package org.hyperprof.api.symbols;

/**
 * A symbol file is malformed or unreadable. Names the file and where: a line for text formats,
 * a byte offset for binary ones, and what was expected there. Characters that would print as
 * nothing are escaped in the message ({@code \t}, {@code \uFEFF}).
 */
public class SymbolFileException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String file;
    private final long position;

    /**
     * @param file     the file's name or path
     * @param position line number (text) or byte offset (binary); -1 when not known
     * @param message  what was found and what was expected
     */
    public SymbolFileException(String file, long position, String message) {
        super(org.hyperprof.api.internal.VisibleText.of(file + (position >= 0 ? ":" + position : "") + ": " + message));
        this.file = file;
        this.position = position;
    }

    public SymbolFileException(String file, String message, Throwable cause) {
        super(org.hyperprof.api.internal.VisibleText.of(file + ": " + message), cause);
        this.file = file;
        this.position = -1;
    }

    public String file() {
        return file;
    }

    public long position() {
        return position;
    }
}
