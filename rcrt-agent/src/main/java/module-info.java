/** Agents: the tool prompt adapter, agent definitions and the agent executor's tool-call loop. */
module dev.rcrt.agent {
  requires transitive dev.rcrt.llm;
  requires transitive dev.rcrt.tools;
  requires java.management;
  requires jtokkit;
  requires org.slf4j;

  exports dev.rcrt.agent;
}
