package org.hyperprof.testing.xenoprof;

import java.util.HashMap;
import java.util.Map;

import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofState;

/**
 * The part of a fake Xenoprof kept as plain fields: its state, the primary, each domain's type and
 * the backtrace depth, as the fake's hypercalls or the test set them and the read methods answer
 * them (a domain not in {@link #types} is ignored).
 */
public abstract class SettableXenoprof implements Xenoprof {
    public XenoprofState state = XenoprofState.IDLE;
    public int primary = -1;
    public final Map<Integer, DomainType> types = new HashMap<>();
    public int backtraceDepth;

    @Override
    public XenoprofState state() {
        return state;
    }

    @Override
    public int primary() {
        return primary;
    }

    @Override
    public DomainType domainType(int domid) {
        return types.getOrDefault(domid, DomainType.IGNORED);
    }

    @Override
    public int backtraceDepth() {
        return backtraceDepth;
    }
}
