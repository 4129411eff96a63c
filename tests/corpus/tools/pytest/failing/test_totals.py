def region_total(rows, region):
    return sum(amount for r, amount in rows if r == region)


def test_total_of_one_region():
    rows = [("north", 10), ("south", 5), ("north", 2)]
    assert region_total(rows, "north") == 12


def test_total_of_all_regions():
    rows = [("north", 10), ("south", 5), ("north", 2)]
    assert region_total(rows, "north") + region_total(rows, "south") == 18
