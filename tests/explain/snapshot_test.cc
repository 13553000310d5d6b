// The snapshot loader on inputs found by fuzzing (tests/fuzz/snapshot_fuzz.cc) and their kin.
#include "explain/snapshot.h"

#include <gtest/gtest.h>

namespace hpa::explain {
namespace {

Result<Snapshot> load(const std::string& text) {
  return loadSnapshot({SnapshotSource{"in.yaml", text}});
}

// The class of the status_fuzz and exec_credential_fuzz findings, found reviewing every
// json::value() call: an apiVersion or kind that is not a string threw nlohmann's type_error out
// of the loader (explain aborted). It is an error naming the field now.
TEST(SnapshotLoader, ApiVersionAndKindMustBeStrings) {
  auto kind = load("apiVersion: v1\nkind: 1\n");
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.error().message, "in.yaml: document 1: kind: expected a string");
  auto version = load("apiVersion: [v1]\nkind: Pod\n");
  ASSERT_FALSE(version.ok());
  EXPECT_EQ(version.error().message, "in.yaml: document 1: apiVersion: expected a string");
  auto item = load("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: {a: b}}\n");
  ASSERT_FALSE(item.ok());
  EXPECT_EQ(item.error().message, "in.yaml: document 1 (items[0]): kind: expected a string");
  auto rc = load(
      "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: r}\nspec: {selector: {app: "
      "web}}\n");
  ASSERT_TRUE(rc.ok()) << rc.error().message;
  EXPECT_EQ(rc->scales.at(0).scale.selector, "app=web");
}

// A built-in workload is its API group and kind, as for the controller's scale target; its fields
// are read as the version clusters serve, so an older export is refused by name.
TEST(SnapshotLoader, BuiltinWorkloadsByGroupAndKind) {
  const std::string spec =
      "metadata: {name: w}\nspec: {replicas: 3, selector: {matchLabels: {app: w}}}\n";
  auto deployment = load("apiVersion: apps/v1\nkind: Deployment\n" + spec);
  ASSERT_TRUE(deployment.ok()) << deployment.error().message;
  EXPECT_EQ(deployment->scales.at(0).kind, "Deployment");
  EXPECT_EQ(deployment->scales.at(0).scale.specReplicas, 3);

  auto older = load("apiVersion: apps/v1beta2\nkind: StatefulSet\n" + spec);
  ASSERT_FALSE(older.ok());
  EXPECT_EQ(older.error().message,
            "in.yaml: document 1: apiVersion apps/v1beta2 is not supported; export the StatefulSet "
            "as apps/v1");

  // A custom resource of the same kind is not a built-in workload.
  auto custom = load("apiVersion: example.com/v1\nkind: Deployment\n" + spec);
  ASSERT_FALSE(custom.ok());
  EXPECT_NE(custom.error().message.find("unsupported object example.com/v1 \"Deployment\""),
            std::string::npos)
      << custom.error().message;
}

}  // namespace
}  // namespace hpa::explain
