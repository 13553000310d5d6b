#include "api/metric_units.h"

#include <gtest/gtest.h>

#include <limits>

namespace hpa::api {
namespace {

TEST(MetricUnits, CpuShowsMillicoresOrWholeCoresAsKubectlDoes) {
  EXPECT_EQ(formatMilli(250, MetricUnit::Cores), "250m");
  EXPECT_EQ(formatMilli(1500, MetricUnit::Cores), "1500m");
  EXPECT_EQ(formatMilli(2000, MetricUnit::Cores), "2");
  EXPECT_EQ(formatMilli(0, MetricUnit::Cores), "0");
  EXPECT_EQ(formatMilli(-250, MetricUnit::Cores), "-250m");
}

TEST(MetricUnits, BytesShowBinarySuffixes) {
  // 50Mi as the calculator counts it.
  EXPECT_EQ(formatMilli(52428800000, MetricUnit::Bytes), "50Mi");
  EXPECT_EQ(formatMilli(1024000, MetricUnit::Bytes), "1Ki");
  EXPECT_EQ(formatMilli(1073741824000, MetricUnit::Bytes), "1Gi");
  EXPECT_EQ(formatMilli(3LL * 1024 * 1024 * 1024 * 1024 * 1000, MetricUnit::Bytes), "3Ti");
  EXPECT_EQ(formatMilli(1536000, MetricUnit::Bytes), "1.5Ki");
  EXPECT_EQ(formatMilli(1536LL * 1024 * 1000, MetricUnit::Bytes), "1536Ki");  // exact beats shorter
  // An average over 3 pods of 50Mi: no whole multiple, two decimals at most.
  EXPECT_EQ(formatMilli(52428800000 / 3, MetricUnit::Bytes), "16.67Mi");
  EXPECT_EQ(formatMilli(512000, MetricUnit::Bytes), "512");
  EXPECT_EQ(formatMilli(500, MetricUnit::Bytes), "0.5");
  EXPECT_EQ(formatMilli(0, MetricUnit::Bytes), "0");
  EXPECT_EQ(formatMilli(-52428800000, MetricUnit::Bytes), "-50Mi");
  EXPECT_EQ(formatMilli(std::numeric_limits<std::int64_t>::max(), MetricUnit::Bytes), "8.19Pi");
}

TEST(MetricUnits, OtherMetricsArePlainNumbers) {
  EXPECT_EQ(formatMilli(32000, MetricUnit::Number), "32");
  EXPECT_EQ(formatMilli(500, MetricUnit::Number), "0.5");
  EXPECT_EQ(formatMilli(1234, MetricUnit::Number), "1.234");
  EXPECT_EQ(formatMilli(1050, MetricUnit::Number), "1.05");
  EXPECT_EQ(formatMilli(0, MetricUnit::Number), "0");
  EXPECT_EQ(formatMilli(-1500, MetricUnit::Number), "-1.5");
  EXPECT_EQ(formatMilli(std::numeric_limits<std::int64_t>::min(), MetricUnit::Number),
            "-9223372036854775.808");
}

TEST(MetricUnits, QuantitiesInTheirMetricsUnit) {
  EXPECT_EQ(formatQuantity(*Quantity::parse("50Mi"), MetricUnit::Bytes), "50Mi");
  EXPECT_EQ(formatQuantity(*Quantity::parse("52428800"), MetricUnit::Bytes), "50Mi");
  EXPECT_EQ(formatQuantity(*Quantity::parse("1500m"), MetricUnit::Number), "1.5");
  EXPECT_EQ(formatQuantity(*Quantity::parse("8"), MetricUnit::Number), "8");
  EXPECT_EQ(formatQuantity(*Quantity::parse("0.25"), MetricUnit::Cores), "250m");
}

TEST(MetricUnits, UnitOfEachMetric) {
  EXPECT_EQ(unitOfResource("cpu"), MetricUnit::Cores);
  EXPECT_EQ(unitOfResource("memory"), MetricUnit::Bytes);
  EXPECT_EQ(unitOfResource("ephemeral-storage"), MetricUnit::Bytes);
  EXPECT_EQ(unitOfResource("hugepages-2Mi"), MetricUnit::Bytes);
  EXPECT_EQ(unitOfResource("nvidia.com/gpu"), MetricUnit::Number);

  MetricSpec memory;
  memory.source = ResourceMetricSource{"memory", {}};
  EXPECT_EQ(unitOf(memory), MetricUnit::Bytes);
  MetricSpec containerCpu;
  containerCpu.source = ContainerResourceMetricSource{"cpu", {}, "app"};
  EXPECT_EQ(unitOf(containerCpu), MetricUnit::Cores);
  MetricSpec external;
  external.source = ExternalMetricSource{{"queue_depth", std::nullopt}, {}};
  EXPECT_EQ(unitOf(external), MetricUnit::Number);
  EXPECT_STREQ(unitName(MetricUnit::Bytes), "bytes");
  EXPECT_STREQ(unitName(MetricUnit::Cores), "cores");
  EXPECT_STREQ(unitName(MetricUnit::Number), "number");
}

}  // namespace
}  // namespace hpa::api
