/** RCRT's own embedding model, all-MiniLM-L6-v2 (quantized), in process: {@link dev.rcrt.embeddings.minilm.MiniLmEmbeddings}. */
module dev.rcrt.embeddings.minilm {
  requires transitive dev.rcrt.core;
  requires dev.rcrt.langchain4j;
  requires langchain4j.core;
  requires langchain4j.embeddings;
  requires langchain4j.embeddings.all.minilm.l6.v2.q;
  requires org.slf4j;

  exports dev.rcrt.embeddings.minilm;
}
