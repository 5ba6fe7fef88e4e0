/**
 * Agent2Agent (A2A, protocol 0.3.0) on the official A2A Java SDK: {@link dev.rcrt.a2a.A2aServer}
 * serves every trusted agent record as an A2A agent, {@link dev.rcrt.a2a.A2aToolRuntime} runs a
 * remote A2A agent as a tool, {@link dev.rcrt.a2a.A2aImport} writes such tools from an Agent Card,
 * and {@link dev.rcrt.a2a.A2aClient} is the client they and {@code ./rcrt a2a} share.
 */
@NullMarked
package dev.rcrt.a2a;

import org.jspecify.annotations.NullMarked;
