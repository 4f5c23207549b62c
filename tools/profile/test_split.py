#!/usr/bin/env python3
"""The profile split charges each frame to the right part (tools/profile/split.py)."""
import io
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import split  # noqa: E402


class OwnerOf(unittest.TestCase):
    def test_a_function_belongs_to_its_own_namespace_not_its_template_arguments(self):
        self.assertEqual(split.owner_of(
            "fencesim::properties::check_exactly_once(std::vector<fencesim::sim::HistoryEvent> "
            "const&, std::function<void ()> const&)"), "properties")
        self.assertEqual(split.owner_of(
            "fencesim::runtime::Checkpoint fencesim::sim::Network::call<fencesim::runtime::"
            "Checkpoint>(unsigned int, unsigned int, std::string const&)"), "sim")
        self.assertIsNone(split.owner_of(
            "std::_Rb_tree<fencesim::runtime::LeaseKey, std::pair<fencesim::runtime::LeaseKey "
            "const, int> >::find(fencesim::runtime::LeaseKey const&)"))
        self.assertIsNone(split.owner_of("__memcmp_evex_movbe"))

    def test_a_function_of_an_anonymous_namespace_keeps_its_name(self):
        symbol = ("fencesim::properties::(anonymous namespace)::CancelMarks::observe("
                  "fencesim::sim::HistoryEvent const&)")
        self.assertEqual(split.function_name(symbol),
                         "fencesim::properties::{anonymous}::CancelMarks::observe")
        self.assertEqual(split.owner_of(symbol), "properties")

    def test_a_lambda_belongs_to_its_enclosing_function(self):
        self.assertEqual(split.owner_of(
            "fencesim::sim::RemoteCheckpointStore::load(fencesim::runtime::LeaseKey const&)::"
            "{lambda()#1}::operator()() const"), "sim")

    def test_the_names_and_keys_vocabulary_is_charged_to_its_caller(self):
        for symbol in ("fencesim::sim::operator<=>(fencesim::sim::Name const&, "
                       "fencesim::sim::Name const&)",
                       "fencesim::runtime::operator<=>(fencesim::runtime::LeaseKey const&, "
                       "fencesim::runtime::LeaseKey const&) (inlined)",
                       "fencesim::sim::Name::release()",
                       "fencesim::sim::NameKey::operator fencesim::runtime::LeaseKey() const",
                       "fencesim::runtime::LeaseKey::LeaseKey(fencesim::runtime::LeaseKey const&)"):
            self.assertEqual(split.owner_of(symbol), "vocabulary", symbol)
        self.assertEqual(split.owner_of("fencesim::sim::NameTable::intern(std::string_view)"),
                         "sim")
        self.assertEqual(split.owner_of(
            "fencesim::sim::operator<(fencesim::sim::Name const&, fencesim::sim::Name const&)"),
            "vocabulary")
        self.assertEqual(split.owner_of(
            "fencesim::sim::Name::operator std::__cxx11::basic_string<char> const&() const"),
            "vocabulary")

    def test_a_method_named_like_the_vocabulary_is_its_own_parts(self):
        for symbol, part in (
                ("fencesim::runtime::MemoryLeaseRepository::release(fencesim::runtime::LeaseKey "
                 "const&, std::string const&, unsigned long)", "runtime"),
                ("fencesim::runtime::HeldLease::release()", "runtime"),
                ("fencesim::sim::History::hash() const", "sim"),
                ("fencesim::properties::ReferenceStores::release(fencesim::sim::StoreCall const&)",
                 "properties"),
                ("fencesim::sim::RemoteLeaseRepository::release(fencesim::runtime::LeaseKey "
                 "const&, std::string const&, unsigned long)::{lambda()#1}::operator()() const",
                 "sim")):
            self.assertEqual(split.owner_of(symbol), part, symbol)

    def test_operator_names_are_not_templates_or_arguments(self):
        self.assertEqual(split.function_name(
            "fencesim::sim::operator<(fencesim::sim::Name const&, fencesim::sim::Name const&)"),
            "fencesim::sim::operator<")
        self.assertEqual(split.function_name(
            "std::ostream& fencesim::sim::operator<<(std::ostream&, fencesim::sim::Name const&)"),
            "fencesim::sim::operator<<")
        self.assertEqual(split.function_name(
            "fencesim::sim::Callback::operator()()"), "fencesim::sim::Callback::operator()")

    def test_hashing_is_its_own_part(self):
        self.assertEqual(split.owner_of("XXH3_64bits_update"), "hashing")


    def test_either_allocator_is_allocation(self):
        for symbol in ("_int_malloc", "cfree@GLIBC_2.2.5", "mi_free", "_mi_malloc_generic",
                       "_mi_page_malloc", "operator new(unsigned long)"):
            self.assertEqual(split.part_of(symbol, False), "allocation", symbol)
        self.assertEqual(split.part_of("__memcmp_evex_movbe", False), "libc strings")
        self.assertEqual(split.part_of("min_element_helper", False), "other")


class ByCaller(unittest.TestCase):
    def test_library_and_vocabulary_frames_go_to_the_innermost_fencesim_function(self):
        script = """
\t  1 __memcmp_evex_movbe
\t  2 fencesim::runtime::operator<=>(fencesim::runtime::LeaseKey const&, fencesim::runtime::LeaseKey const&) (inlined)
\t  3 std::_Rb_tree<fencesim::runtime::LeaseKey, int>::find(fencesim::runtime::LeaseKey const&)
\t  4 fencesim::properties::check_fence_scoping(std::vector<fencesim::sim::HistoryEvent> const&)
\t  5 fencesim::properties::run_scenario(fencesim::scenarios::ScenarioRegistry const&)

\t  1 malloc
\t  2 fencesim::runtime::TreeRunner::run_step(fencesim::runtime::StepItem const&)
\t  3 fencesim::sim::Scheduler::fiber_main()

\t  1 _dl_relocate_object
\t  2 _dl_start_user
"""
        shares = split.by_caller(io.StringIO(script))
        self.assertAlmostEqual(shares["properties"], 100 / 3)
        self.assertAlmostEqual(shares["runtime"], 100 / 3)
        self.assertAlmostEqual(shares["outside"], 100 / 3)


if __name__ == "__main__":
    unittest.main()
