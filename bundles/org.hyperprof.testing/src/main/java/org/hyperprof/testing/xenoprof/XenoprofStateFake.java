package org.hyperprof.testing.xenoprof;

import java.util.HashMap;
import java.util.Map;

import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofState;

/**
 * A fake Xenoprof's answers about its session (state, primary, each domain's type) held in fields
 * that the fake's hypercalls or the test set; the fake itself says what its hypercalls do.
 */
public abstract class XenoprofStateFake implements Xenoprof {
    public XenoprofState state = XenoprofState.IDLE;
    /** The primary profiler's domain; -1 before init. */
    public int primary = -1;
    /** Domains not listed are {@link DomainType#IGNORED}. */
    public final Map<Integer, DomainType> types = new HashMap<>();

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
}
