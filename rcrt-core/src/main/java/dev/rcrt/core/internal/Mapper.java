package dev.rcrt.core.internal;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The one Jackson mapper of rcrt-core, configured as {@link dev.rcrt.core.RcrtJson} documents.
 * Kept inside rcrt-core: other modules use the {@code RcrtJson} facade, which cannot reconfigure it.
 */
public final class Mapper {
  private Mapper() {}

  /** Thread-safe; never reconfigured after this line. */
  public static final ObjectMapper SHARED =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .serializationInclusion(JsonInclude.Include.NON_NULL)
          .build();
}
