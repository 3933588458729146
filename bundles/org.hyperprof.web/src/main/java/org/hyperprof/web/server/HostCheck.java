package org.hyperprof.web.server;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The Host headers the view answers: the loopback names with the port it listens on, and the address
 * of an explicit {@code --listen}. A browser sends the name it resolved, so a page of another site that
 * rebinds its own name to 127.0.0.1 still sends that name, and is refused.
 */
public final class HostCheck {
    private final Set<String> allowed;

    private HostCheck(Set<String> allowed) {
        this.allowed = Set.copyOf(allowed);
    }

    /** Loopback only: {@code 127.0.0.1:PORT}, {@code localhost:PORT}, {@code [::1]:PORT}. */
    public static HostCheck loopback(int port) {
        return listening(port, null);
    }

    /** Loopback, and the address (or name) given to {@code --listen}, when one was. */
    public static HostCheck listening(int port, String listenAddress) {
        Set<String> hosts = new TreeSet<>();
        hosts.add("127.0.0.1:" + port);
        hosts.add("localhost:" + port);
        hosts.add("[::1]:" + port);
        if (listenAddress != null && !listenAddress.isBlank()) {
            String a = listenAddress.strip().toLowerCase(Locale.ROOT);
            hosts.add((a.contains(":") && !a.startsWith("[") ? "[" + a + "]" : a) + ":" + port);
        }
        return new HostCheck(hosts);
    }

    /**
     * For a wildcard {@code --listen} (0.0.0.0, ::): the names this machine is reached by, its host name
     * and every address of its interfaces, each with the port.
     */
    public static HostCheck everyLocalAddress(int port, String listenAddress) {
        Set<String> hosts = new TreeSet<>(listening(port, listenAddress).allowed);
        try {
            hosts.add(InetAddress.getLocalHost().getHostName().toLowerCase(Locale.ROOT) + ":" + port);
        } catch (UnknownHostException e) {
            // no name: the addresses below still serve
        }
        try {
            for (NetworkInterface i : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress a : Collections.list(i.getInetAddresses())) {
                    String text = a.getHostAddress();
                    int zone = text.indexOf('%');
                    text = zone < 0 ? text : text.substring(0, zone);
                    hosts.add((a instanceof Inet6Address ? "[" + text + "]" : text) + ":" + port);
                }
            }
        } catch (SocketException e) {
            // no interface list: loopback and the name only
        }
        return new HostCheck(hosts);
    }

    /** Whether a request's Host header (null when it sent none) names this server. */
    public boolean allows(String hostHeader) {
        return hostHeader != null && allowed.contains(hostHeader.strip().toLowerCase(Locale.ROOT));
    }

    public Set<String> allowed() {
        return allowed;
    }
}
