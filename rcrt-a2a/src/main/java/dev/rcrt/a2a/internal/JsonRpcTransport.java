package dev.rcrt.a2a.internal;

import io.a2a.server.TransportMetadata;
import io.a2a.spec.TransportProtocol;

/** Tells the A2A SDK's card validation that this server speaks the JSON-RPC transport. */
public final class JsonRpcTransport implements TransportMetadata {
  @Override
  public String getTransportProtocol() {
    return TransportProtocol.JSONRPC.asString();
  }
}
