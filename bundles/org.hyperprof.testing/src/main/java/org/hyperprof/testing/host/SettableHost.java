package org.hyperprof.testing.host;

import java.util.List;

import org.hyperprof.api.host.Host;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.sample.GroundTruth;

/**
 * The part of a fake host kept as plain fields: its name, description, CPU model and pCPUs (a 2800
 * MHz machine), the policy it reports, the cycles run so far and why it stopped, if it did. It
 * knows no ground truth. The fake adds its domains, its Xenoprof and what a run does.
 */
public abstract class SettableHost implements Host {
    public static final long MHZ = 2800;

    private final String name;
    private final String description;
    public final PmuModel model;
    private final int pcpus;
    public String policy = "systemwide";
    public long cycles;
    public String stopReason;

    protected SettableHost(String name, String description, PmuModel model, int pcpus) {
        this.name = name;
        this.description = description;
        this.model = model;
        this.pcpus = pcpus;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public PmuModel model() {
        return model;
    }

    @Override
    public long mhz() {
        return MHZ;
    }

    @Override
    public int pcpuCount() {
        return pcpus;
    }

    @Override
    public String policy() {
        return policy;
    }

    @Override
    public long cycles() {
        return cycles;
    }

    @Override
    public String stopReason() {
        return stopReason;
    }

    @Override
    public GroundTruth groundTruth() {
        return new GroundTruth(List.of());
    }
}
