package dev.tide.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.util.JsonFormat;
import dev.tide.proto.admin.CreateJobRequest;
import dev.tide.proto.admin.StatusResponse;
import dev.tide.proto.admin.WorkerHealth;
import org.junit.jupiter.api.Test;

/** {@link ProtoJson}: 64-bit numbers as numbers, every field present, readable back by {@code JsonFormat}. */
class ProtoJsonTest {
  @Test
  void unsigned64BitNumbersAreExactNumbersAndDefaultsArePresent() throws Exception {
    StatusResponse s = StatusResponse.newBuilder().setCommittedEpoch(-1L).setRecoveries(3)
        .addWorkers(WorkerHealth.newBuilder().setId(7).setAddress("a\"b\\c\n")).build();
    String json = ProtoJson.print(s);
    assertThat(json).contains("\"committedEpoch\": 18446744073709551615,", "\"recoveries\": 3,", "\"inflightBarriers\": 0,",
        "\"address\": \"a\\\"b\\\\c\\n\"", "\"store\": null", "\"jobList\": []");
    StatusResponse.Builder back = StatusResponse.newBuilder();
    JsonFormat.parser().merge(json, back);
    assertThat(back.build()).isEqualTo(s);
  }

  @Test
  void mapsPrintAsObjects() throws Exception {
    CreateJobRequest r = CreateJobRequest.newBuilder().setQuery("q5").putSourceOptions("events", "1000").build();
    String json = ProtoJson.print(r);
    assertThat(json).contains("\"sourceOptions\": {\n    \"events\": \"1000\"\n  }");
    CreateJobRequest.Builder back = CreateJobRequest.newBuilder();
    JsonFormat.parser().merge(json, back);
    assertThat(back.build()).isEqualTo(r);
  }
}
