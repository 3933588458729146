package org.hyperprof.hypervisor.sim.scenario;

import java.util.HashMap;
import java.util.Map;

import org.hyperprof.api.host.ScenarioException;

/**
 * The rate profiles a scenario defines ({@code rates <profile> <SIGNAL>=<rate> ...} among the host
 * statements) and the hypervisor's costs and the regions name ({@code cost.rates}, {@code rates=}).
 */
final class RateProfiles {
    private final ScenarioTokens tokens;
    private final Map<String, long[]> profiles = new HashMap<>();

    RateProfiles(ScenarioTokens tokens) {
        this.tokens = tokens;
    }

    /** {@code rates <profile> <SIGNAL>=<rate> ...}: signals not named emit nothing but cycles. */
    void define(String[] t, int line) throws ScenarioException {
        if (t.length < 3) {
            throw tokens.error(line, "expected 'rates <profile> <SIGNAL>=<events per 1000 cycles> ...'");
        }
        if (profiles.containsKey(t[1])) {
            throw tokens.error(line, "rate profile '" + t[1] + "' is defined twice");
        }
        long[] rates = ScenarioTokens.defaultRates();
        for (int i = 2; i < t.length; i++) {
            tokens.rate(t[i], rates, line);
        }
        profiles.put(t[1], rates);
    }

    /** A copy of the rates of {@code profileName}. */
    long[] get(String profileName, int line) throws ScenarioException {
        long[] p = profiles.get(profileName);
        if (p == null) {
            throw tokens.error(line, "rate profile '" + profileName + "' is not defined; defined: " + profiles.keySet()
                    + " (define it with 'rates <profile> <SIGNAL>=<rate> ...' among the host statements)");
        }
        return p.clone();
    }
}
