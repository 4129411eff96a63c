from totals import region_total


def test_total_of_one_region():
    rows = [("north", 10), ("south", 5), ("north", 2)]
    assert region_total(rows, "north") == 12
