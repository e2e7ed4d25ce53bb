//===- YamlTest.cpp - One YAML document, and no endless LoadAll -----------===//
//
// yaml-cpp 0.7's LoadAll loops forever on a stray ',' (the fuzzer found it
// in the model reader); loadOneDocument must stop and say where.
//
//===----------------------------------------------------------------------===//

#include "snow/support/Yaml.h"
#include <gtest/gtest.h>

using namespace snow;

TEST(OneYamlDocument, FirstDocumentAndWhereASecondStarts) {
  YamlDocument D = loadOneDocument("a: 1\nb: [2, 3]\n");
  ASSERT_TRUE(D.Root.IsMap());
  EXPECT_EQ(D.Root["b"][1].as<int>(), 3);
  EXPECT_EQ(D.SecondLine, 0u);
  EXPECT_EQ(extraDocumentError(D, "m.yaml"), "");

  D = loadOneDocument("a: 1\n---\nb: 2\n---\nc: 3\n");
  EXPECT_EQ(D.Root["a"].as<int>(), 1);
  EXPECT_EQ(D.SecondLine, 2u);
  EXPECT_FALSE(D.Stuck);
  EXPECT_EQ(extraDocumentError(D, "m.yaml"),
            "m.yaml:2: expected one YAML document, got a second (a '---' line starts another)");

  D = loadOneDocument("a: 1\n...\nb: 2\n");
  EXPECT_EQ(D.SecondLine, 3u);
  EXPECT_FALSE(D.Stuck);

  D = loadOneDocument("");
  EXPECT_TRUE(D.Root.IsNull());
  EXPECT_EQ(D.SecondLine, 0u);
}

TEST(OneYamlDocument, StrayTokensStopInsteadOfLoopingForever) {
  // Each of these kept YAML::LoadAll appending null documents until memory
  // ran out.
  for (const char *Text : {",\n", ", 7]}\nname: x\n", ",\n,\n", "  a: 1\n  b: 2\n,endhw\n"}) {
    YamlDocument D = loadOneDocument(Text);
    EXPECT_NE(D.SecondLine, 0u) << Text;
    EXPECT_TRUE(D.Stuck) << Text;
    EXPECT_NE(extraDocumentError(D, "m.yaml").find("YAML syntax error"), std::string::npos) << Text;
  }
}
