"""NonMaxSuppression: which boxes survive among overlapping ones, judged by every order of equal scores."""
