package org.hyperprof.web.server;

/**
 * Where the view listens once {@code hp:serve} started it.
 *
 * @param address the address bound (127.0.0.1 unless {@code --listen})
 * @param port    the port bound
 * @param hosts   the Host headers answered
 * @param token   the access token
 */
public record Serving(String address, int port, HostCheck hosts, AccessToken token) {

    /** The address to open, with the token: {@code http://127.0.0.1:PORT/?token=...}. */
    public String url() {
        String host = address.contains(":") ? "[" + address + "]" : address;
        return "http://" + host + ":" + port + "/?token=" + token.value();
    }
}
