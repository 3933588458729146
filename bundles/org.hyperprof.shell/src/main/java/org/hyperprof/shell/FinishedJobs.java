package org.hyperprof.shell;

import java.lang.reflect.Field;
import java.util.List;

import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.CommandSessionListener;
import org.apache.felix.service.command.Job;
import org.osgi.service.component.annotations.Component;

/**
 * Releases the jobs a Gogo shell keeps of the command lines it ran. Gogo runtime 1.1's shell runs
 * its console as one job ({@code gosh}), and every line the console executes becomes a job too: a
 * child of the console's job, which {@code CommandSessionImpl.createJob} adds to that job's list of
 * children and nothing ever removes (only a job without a parent leaves the session's list when it
 * is done). Each kept job holds its pipes, streams and result, so a shell left open for a week of
 * profiling grew by some 50 KB a command. After each command line this drops the finished
 * children of the job the line ran in; the running ones stay, so interrupting a job still reaches
 * them.
 */
@Component(service = CommandSessionListener.class)
public final class FinishedJobs implements CommandSessionListener {
    /** The private field of Gogo 1.1's job that keeps its children; absent in another Gogo, where this does nothing. */
    static final String CHILDREN = "children";

    @Override
    public void beforeExecute(CommandSession session, CharSequence command) {
    }

    @Override
    public void afterExecute(CommandSession session, CharSequence command, Exception exception) {
        release(Job.Utils.current());
    }

    @Override
    public void afterExecute(CommandSession session, CharSequence command, Object result) {
        release(Job.Utils.current());
    }

    /**
     * Drops the finished children of {@code job} (null: a line run outside any job, which keeps
     * nothing).
     *
     * @return how many children it kept: those still running
     */
    static int release(Job job) {
        List<?> children = children(job);
        if (children == null) {
            return 0;
        }
        // Gogo adds and iterates children under the list's own lock.
        synchronized (children) {
            children.removeIf(c -> c instanceof Job j && j.status() == Job.Status.Done);
            return children.size();
        }
    }

    /** The list of children {@code job} keeps, or null when it keeps none this way. */
    static List<?> children(Job job) {
        if (job == null) {
            return null;
        }
        try {
            Field f = job.getClass().getDeclaredField(CHILDREN);
            f.setAccessible(true);
            return f.get(job) instanceof List<?> list ? list : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
