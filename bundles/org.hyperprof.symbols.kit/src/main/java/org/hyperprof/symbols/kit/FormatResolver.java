package org.hyperprof.symbols.kit;

import java.util.Objects;

import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.input.InputLimit;

/**
 * A resolver of one symbol format within one read ceiling: {@link #format()} is the format it
 * registers for (its {@code symbols.format}), {@link #limit} the most it reads of one image, and
 * {@link #toString()} names it by class and format.
 */
public abstract class FormatResolver implements SymbolResolver {
    /** The most this resolver reads of one image. */
    protected final InputLimit limit;
    private final String format;

    protected FormatResolver(String format, InputLimit limit) {
        this.format = Objects.requireNonNull(format, "format");
        this.limit = Objects.requireNonNull(limit, "limit");
    }

    @Override
    public final String format() {
        return format;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + format + "]";
    }
}
