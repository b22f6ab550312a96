//===- TraceTest.cpp - Request traces read as published ------------------===//
//
// Every format of Trace.h on rows written here in its published columns
// (the shipped samples of the real files are tests/Tools/trace-formats.test),
// with the arithmetic of each expected time in the comment.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Serving/Trace.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace snapflow::sim::serving;

namespace {

std::string writeTemp(llvm::StringRef text) {
  llvm::SmallString<128> path;
  int fd;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("requests", "csv", fd, path));
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
  os << text;
  return path.str().str();
}

TEST(Trace, ReadsRequestFiles) {
  std::string path = writeTemp("# a comment\n"
                               "prompt_tokens,arrival_s,output_tokens\n"
                               "100,0.0,3\n"
                               "\n"
                               "200,1.5,7\r\n");
  auto r = readRequests(path);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[1].promptTokens, 200);
  EXPECT_DOUBLE_EQ((*r)[1].arrivalS, 1.5);
  EXPECT_EQ((*r)[1].outputTokens, 7);
  EXPECT_EQ((*r)[1].line, 5);
  (void)llvm::sys::fs::remove(path);
}

TEST(Trace, MalformedRequestFilesNameTheLine) {
  struct Case {
    const char *text, *error;
  } cases[] = {
      {"arrival_s,prompt_tokens,output_tokens\n0,100,3\n0.5,abc,3\n",
       ":3:5: error: prompt_tokens must be a whole number from 1 to "
       "134217728, got 'abc'"},
      {"arrival_s,prompt_tokens,output_tokens\n-1,100,3\n",
       ":2:1: error: arrival_s must be seconds from 0 to 1e+08, got "
       "'-1'"},
      {"arrival_s,prompt_tokens,output_tokens\n0,100\n",
       ":2:1: error: 2 fields, the header has 3"},
      {"arrival_s,prompt,output_tokens\n0,100,3\n",
       ":1:1: error: the header needs the columns "
       "arrival_s,prompt_tokens,output_tokens; 'prompt_tokens' is missing"},
      {"arrival_s,prompt_tokens,output_tokens\n0,100,0\n",
       ":2:7: error: output_tokens must be a whole number from 1 to "
       "134217728, got '0'"},
      {"arrival_s,prompt_tokens,output_tokens\n",
       ": error: no requests after the header"},
  };
  for (const Case &c : cases) {
    std::string path = writeTemp(c.text);
    auto r = readRequests(path);
    ASSERT_FALSE(static_cast<bool>(r)) << c.text;
    std::string msg = llvm::toString(r.takeError());
    EXPECT_EQ(msg, path + c.error);
    (void)llvm::sys::fs::remove(path);
  }
}

// The Azure LLM inference trace: TIMESTAMP is a date and time; arrivals
// start at the first request. 18:15:46.68059 -> 0; 18:15:50.995169 -> 4.314579;
// 23:59:59.5 -> 5 h 44 min 12.81941 s = 20652.81941; across midnight,
// 00:00:00.25 of the next day -> 0.75 s later, 20653.56941.
TEST(Trace, AzureTraceArrivalsAreRelativeSeconds) {
  std::string path = writeTemp("TIMESTAMP,ContextTokens,GeneratedTokens\n"
                               "2023-11-16 18:15:46.6805900,374,44\n"
                               "2023-11-16 18:15:50.9951690,396,109\n"
                               "2023-11-16 23:59:59.5000000,1020,3\n"
                               "2023-11-17 00:00:00.2500000,200,16\n");
  TraceInfo info;
  auto r = readRequests(path, {}, &info);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(info.format, TraceFormat::Azure);
  ASSERT_EQ(r->size(), 4u);
  EXPECT_NEAR((*r)[0].arrivalS, 0, 1e-6);
  EXPECT_NEAR((*r)[1].arrivalS, 4.314579, 1e-6);
  EXPECT_NEAR((*r)[2].arrivalS, 20652.81941, 1e-6);
  EXPECT_NEAR((*r)[3].arrivalS, 20653.56941, 1e-6);
  EXPECT_EQ((*r)[1].promptTokens, 396);
  EXPECT_EQ((*r)[1].outputTokens, 109);
  (void)llvm::sys::fs::remove(path);
}

// The Azure 2024 traces write an ISO 8601 offset (refused before, issue
// 35): 2024-05-10 00:00:00.009930+00:00 -> 0; 00:00:01.5+00:00 -> 1.490070;
// 02:00:03-01:00 is 03:00:03 UTC -> 3 h 0 min 3 s - 0.00993 = 10802.99007;
// 08:30:05+0530 is 03:00:05 UTC -> 10804.99007. An offset of 24 hours is
// not one.
TEST(Trace, Azure2024OffsetsAreUTC) {
  std::string path = writeTemp("TIMESTAMP,ContextTokens,GeneratedTokens\n"
                               "2024-05-10 00:00:00.009930+00:00,374,44\n"
                               "2024-05-10 00:00:01.5+00:00,396,109\n"
                               "2024-05-10T02:00:03-01:00,10,3\n"
                               "2024-05-10 08:30:05+0530,20,16\n");
  auto r = readRequests(path);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  ASSERT_EQ(r->size(), 4u);
  EXPECT_NEAR((*r)[1].arrivalS - (*r)[0].arrivalS, 1.490070, 1e-6);
  EXPECT_NEAR((*r)[2].arrivalS - (*r)[0].arrivalS, 10802.99007, 1e-6);
  EXPECT_NEAR((*r)[3].arrivalS - (*r)[0].arrivalS, 10804.99007, 1e-6);
  (void)llvm::sys::fs::remove(path);
  path = writeTemp("TIMESTAMP,ContextTokens,GeneratedTokens\n"
                   "2024-05-10 00:00:00+24:00,374,44\n");
  auto bad = readRequests(path);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError())
                .find("with a zone such as Z or "
                      "+00:00"),
            std::string::npos);
  (void)llvm::sys::fs::remove(path);
}

// BurstGPT: seconds, extra columns ignored, a failed request (0 response
// tokens) skipped and counted; arrivals relative to the first (5 s).
TEST(Trace, BurstGPTTraceSkipsFailedRequests) {
  std::string path = writeTemp(
      "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
      "5,ChatGPT,472,18,490,Conversation log\n"
      "45,ChatGPT,1087,0,1087,Conversation log\n"
      "118,GPT-4,417,101,518,Conversation log\n");
  TraceInfo info;
  auto r = readRequests(path, {}, &info);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(info.format, TraceFormat::BurstGPT);
  EXPECT_EQ(info.skipped, 1);
  ASSERT_EQ(r->size(), 2u);
  EXPECT_DOUBLE_EQ((*r)[1].arrivalS, 113);
  EXPECT_EQ((*r)[1].line, 4);
  // BurstGPT names the model each request asked for.
  EXPECT_TRUE(info.hasModel);
  EXPECT_EQ((*r)[0].modelName, "ChatGPT");
  EXPECT_EQ((*r)[1].modelName, "GPT-4");
  (void)llvm::sys::fs::remove(path);
}

// A model column: snapflow's `model`, BurstGPT's `Model`.
TEST(Trace, TracesCarryTheModel) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("models", "csv", path));
  {
    std::error_code ec;
    llvm::raw_fd_ostream f(path, ec);
    f << "arrival_s,model,prompt_tokens,output_tokens\n"
         "0.0,llama-3.1-8b,100,10\n"
         "1.0,llama-3.2-1b,200,20\n";
  }
  TraceInfo info;
  auto reqs = readRequests(path, {}, &info);
  ASSERT_TRUE(static_cast<bool>(reqs)) << llvm::toString(reqs.takeError());
  EXPECT_TRUE(info.hasModel);
  ASSERT_EQ(reqs->size(), 2u);
  EXPECT_EQ((*reqs)[0].modelName, "llama-3.1-8b");
  EXPECT_EQ((*reqs)[1].modelName, "llama-3.2-1b");
  {
    std::error_code ec;
    llvm::raw_fd_ostream f(path, ec);
    f << "arrival_s,model,prompt_tokens,output_tokens\n"
         "0.0, ,100,10\n";
  }
  auto bad = readRequests(path);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError())
                .find(":2:5: error: model must name a model"),
            std::string::npos);
  (void)llvm::sys::fs::remove(path);
}

// Mooncake (FAST'25): JSON lines, timestamp in milliseconds, hash_ids of
// 512-token blocks; the clock starts at the first request (27,000 ms ->
// 0). Row 2 arrives 1,500 ms later: 1.5 s. 6758 tokens: ceil(6758 / 512)
// = 14 blocks; 1000 tokens: 2.
TEST(Trace, MooncakeIsMillisecondsWithBlocks) {
  std::string path = writeTemp(
      "{\"timestamp\": 27000, \"input_length\": 6758, \"output_length\": 500, "
      "\"hash_ids\": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]}\n"
      "{\"timestamp\": 28500, \"input_length\": 1000, \"output_length\": 0, "
      "\"hash_ids\": [0, 14]}\n"
      "{\"timestamp\": 28500, \"input_length\": 1000, \"output_length\": 7, "
      "\"hash_ids\": [0, 15]}\n");
  TraceInfo info;
  auto r = readRequests(path, {}, &info);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(info.format, TraceFormat::Mooncake);
  EXPECT_TRUE(info.hasBlocks);
  EXPECT_EQ(info.blockTokens, 512);
  EXPECT_EQ(info.skipped, 1); // 0 output tokens
  ASSERT_EQ(r->size(), 2u);
  EXPECT_DOUBLE_EQ((*r)[0].arrivalS, 0);
  EXPECT_DOUBLE_EQ((*r)[1].arrivalS, 1.5);
  EXPECT_EQ((*r)[1].line, 3);
  EXPECT_EQ((*r)[1].id, 1);
  EXPECT_EQ((*r)[0].blocks.size(), 14u);
  EXPECT_EQ((*r)[1].blocks, (std::vector<int64_t>{0, 15}));
  (void)llvm::sys::fs::remove(path);
}

// Qwen-Bailian: the same keys but seconds and 16-token blocks, picked by
// its chat_id. 61.114 s then 62.5 s: 1.386 s apart. 40 tokens: ceil(40 /
// 16) = 3 blocks (or floor, 2, where only full blocks are hashed).
TEST(Trace, BailianIsSecondsWithSmallBlocks) {
  std::string path = writeTemp(
      "{\"chat_id\": 159, \"parent_chat_id\": 55, \"timestamp\": 61.114, "
      "\"input_length\": 40, \"output_length\": 132, \"type\": \"text\", "
      "\"turn\": 2, \"hash_ids\": [1089, 1090, 1091]}\n"
      "{\"chat_id\": 160, \"parent_chat_id\": -1, \"timestamp\": 62.5, "
      "\"input_length\": 40, \"output_length\": 9, \"type\": \"text\", "
      "\"turn\": 1, \"hash_ids\": [7, 8]}\n");
  TraceInfo info;
  auto r = readRequests(path, {}, &info);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(info.format, TraceFormat::Bailian);
  EXPECT_EQ(info.blockTokens, 16);
  ASSERT_EQ(r->size(), 2u);
  EXPECT_NEAR((*r)[1].arrivalS, 1.386, 1e-9);
  (void)llvm::sys::fs::remove(path);
}

// A Bailian trace named a Mooncake one: 3 blocks for 40 tokens are not
// 512-token blocks (1), which is how a wrong unit shows itself; the error
// says so and names the flag.
TEST(Trace, BlocksOfAnotherSizeAreAnError) {
  std::string text = "{\"timestamp\": 61.114, \"input_length\": 40, "
                     "\"output_length\": 132, \"hash_ids\": [1, 2, 3]}\n";
  TraceOptions mooncake;
  mooncake.format = TraceFormat::Mooncake;
  auto r = parseRequests(text, "t.jsonl", mooncake);
  ASSERT_FALSE(static_cast<bool>(r));
  EXPECT_EQ(llvm::toString(r.takeError()),
            "t.jsonl:1:65: error: hash_ids has 3 blocks for 40 prompt tokens, "
            "but blocks of 512 tokens (a Mooncake trace's) make 1 (or 0); if "
            "this trace's blocks are another size, say it with "
            "--trace-block-tokens");
  mooncake.blockTokens = 16;
  EXPECT_TRUE(static_cast<bool>(parseRequests(text, "t.jsonl", mooncake)));
}

// SplitwiseSim's CSV and Vidur's: seconds, shifted to the first request.
TEST(Trace, SplitwiseAndVidurAreSeconds) {
  TraceInfo info;
  auto s = parseRequests("request_id,request_type,application_id,"
                         "arrival_timestamp,batch_size,prompt_size,token_size\n"
                         "0,2,0,1,1,4096,32\n"
                         "1,2,0,3,1,2048,8\n",
                         "s.csv", {}, &info);
  ASSERT_TRUE(static_cast<bool>(s)) << llvm::toString(s.takeError());
  EXPECT_EQ(info.format, TraceFormat::Splitwise);
  EXPECT_DOUBLE_EQ((*s)[1].arrivalS, 2);
  EXPECT_EQ((*s)[0].promptTokens, 4096);
  EXPECT_EQ((*s)[1].outputTokens, 8);
  auto v = parseRequests("arrived_at,num_prefill_tokens,num_decode_tokens\n"
                         "0.0,374,44\n"
                         "4.314579,396,109\n",
                         "v.csv", {}, &info);
  ASSERT_TRUE(static_cast<bool>(v)) << llvm::toString(v.takeError());
  EXPECT_EQ(info.format, TraceFormat::Vidur);
  EXPECT_DOUBLE_EQ((*v)[1].arrivalS, 4.314579);
}

// snapflow's CSV names its clock's unit (arrival_ms: 1500 ms = 1.5 s, not
// shifted) and may carry block hashes, '|'-separated, 16-token blocks by
// default: 40 tokens -> 3 blocks.
TEST(Trace, SnapflowUnitsAndBlocks) {
  TraceInfo info;
  auto r = parseRequests("arrival_ms,prompt_tokens,output_tokens,hash_ids\n"
                         "1000,40,3,1|2|3\n"
                         "1500,40,3,1|2|4\n",
                         "t.csv", {}, &info);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_DOUBLE_EQ((*r)[0].arrivalS, 1.0);
  EXPECT_DOUBLE_EQ((*r)[1].arrivalS, 1.5);
  EXPECT_EQ((*r)[1].blocks, (std::vector<int64_t>{1, 2, 4}));
  EXPECT_TRUE(info.hasBlocks);
  EXPECT_EQ(info.blockTokens, 16);
  // A clock without its unit is not read as seconds by guess.
  auto bare =
      parseRequests("arrival,prompt_tokens,output_tokens\n0,4,3\n", "t.csv");
  ASSERT_FALSE(static_cast<bool>(bare));
  EXPECT_EQ(llvm::toString(bare.takeError()),
            "t.csv:1:1: error: the header needs the columns arrival_s,"
            "prompt_tokens,output_tokens; 'arrival_s' is missing (a column "
            "'arrival' is here: name its unit, arrival_s or arrival_ms)");
}

// A trace lists requests in arrival order (what lets it be streamed); a
// row earlier than the one before is located and says what to do.
TEST(Trace, UnsortedRowsAreLocated) {
  auto r = parseRequests("arrival_s,prompt_tokens,output_tokens\n"
                         "0,4,3\n"
                         "2.5,4,3\n"
                         "1,4,3\n",
                         "t.csv");
  ASSERT_FALSE(static_cast<bool>(r));
  EXPECT_EQ(llvm::toString(r.takeError()),
            "t.csv:4:1: error: arrival_s 1 is before 2.5 at line 3; a trace "
            "lists its requests in arrival order (sort the rows by "
            "arrival_s)");
  auto j = parseRequests(
      "{\"timestamp\": 5, \"input_length\": 4, \"output_length\": 3}\n"
      "{\"timestamp\": 4, \"input_length\": 4, \"output_length\": 3}\n",
      "t.jsonl");
  ASSERT_FALSE(static_cast<bool>(j));
  EXPECT_EQ(llvm::toString(j.takeError()),
            "t.jsonl:2:2: error: timestamp 4 ms is before 5 ms at line 1; a "
            "trace lists its requests in arrival order (sort the rows by "
            "timestamp)");
}

// JSON lines: a broken line, a wrong type and a CSV named a JSON format are
// located errors; so is a JSON line named a CSV format.
TEST(Trace, MalformedJsonLinesAreLocated) {
  struct Case {
    const char *text;
    TraceFormat format;
    const char *error;
  } cases[] = {
      {"{\"timestamp\": 0, \"input_length\": 4, \"output_length\": 3}\n"
       "{\"timestamp\": 1, \"input_length\": 4,\n",
       TraceFormat::Auto, "t:2:35: error: not JSON: "},
      {"{\"timestamp\": 0, \"input_length\": \"4\", \"output_length\": 3}\n",
       TraceFormat::Auto,
       "t:1:18: error: \"input_length\" must be a whole number from 0 to "
       "134217728, got \"4\""},
      {"{\"timestamp\": 0, \"input_length\": 4}\n", TraceFormat::Auto,
       "t:1:1: error: a request of a Mooncake trace has the keys "
       "\"timestamp\", \"input_length\" and \"output_length\"; "
       "\"output_length\" is missing"},
      {"arrival_s,prompt_tokens,output_tokens\n0,4,3\n", TraceFormat::Mooncake,
       "t:1:1: error: a Mooncake trace is JSON lines, one object a request "
       "({\"timestamp\": ..., \"input_length\": ..., \"output_length\": "
       "...}); this line is not a JSON object"},
      {"{\"timestamp\": 0, \"input_length\": 4, \"output_length\": 3}\n",
       TraceFormat::Azure,
       "t:1:1: error: an Azure LLM inference trace is CSV with a header "
       "(TIMESTAMP,ContextTokens,GeneratedTokens); this line is a JSON object "
       "(a Mooncake or Qwen-Bailian trace: --trace-format mooncake or "
       "bailian)"},
      {"{\"timestamp\": -1, \"input_length\": 4, \"output_length\": 3}\n",
       TraceFormat::Auto,
       "t:1:2: error: \"timestamp\" must be milliseconds from 0 to 1e+13 (a "
       "Mooncake "
       "trace), got -1"},
  };
  for (const Case &c : cases) {
    TraceOptions o;
    o.format = c.format;
    auto r = parseRequests(c.text, "t", o);
    ASSERT_FALSE(static_cast<bool>(r)) << c.text;
    std::string msg = llvm::toString(r.takeError());
    EXPECT_EQ(msg.substr(0, std::string(c.error).size()), c.error) << msg;
  }
}

// A reader streams: a second pass gives the same requests, ids from 0.
TEST(Trace, ReaderRewindsForASecondPass) {
  std::string path = writeTemp("TIMESTAMP,ContextTokens,GeneratedTokens\n"
                               "2023-11-16 18:15:46.6805900,374,44\n"
                               "2023-11-16 18:15:50.9951690,396,0\n"
                               "2023-11-16 18:15:51.2506270,879,34\n");
  auto reader = TraceReader::open(path);
  ASSERT_TRUE(static_cast<bool>(reader)) << llvm::toString(reader.takeError());
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<Request> got;
    for (;;) {
      auto r = (*reader)->next();
      ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
      if (!*r)
        break;
      got.push_back(**r);
    }
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[1].id, 1);
    EXPECT_EQ(got[1].line, 4);
    EXPECT_NEAR(got[1].arrivalS, 4.570037, 1e-6);
    EXPECT_EQ((*reader)->info().skipped, 1);
    ASSERT_FALSE(static_cast<bool>((*reader)->rewind()));
  }
  (void)llvm::sys::fs::remove(path);
}

} // namespace
