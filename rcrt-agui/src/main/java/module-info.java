/**
 * AG-UI (the Agent-User Interaction protocol 1.0): agent runs streamed to front-ends from their
 * records, resumable from any process of the store, with approvals and a tool's questions as
 * interrupts.
 */
module dev.rcrt.agui {
  requires transitive dev.rcrt.agent;
  requires dev.rcrt.a2a;
  requires com.fasterxml.jackson.databind;
  requires dev.rcrt.http;
  requires org.slf4j;

  exports dev.rcrt.agui;
}
