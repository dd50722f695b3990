/*
 * test_layout.c — entry counts, order and labels of each model's release.
 */
#include "unit.h"
#include "layout.h"

#include <string.h>

void
test_layout(void)
{
	dpb_layout	L;
	dpb_entry	e;
	char		buf[128];
	const char *names[] = {"age", "bmi"};
	int			d,
				k,
				ic;

	/* linear, d = 2, intercept: t2 of [1,x1,x2] minus constant = 5,
	 * y*[1,x1,x2] = 3, y^2 = 1 */
	CHECK(dpb_layout_init(&L, DPB_MODEL_LINEAR, 2, 1) == DPB_OK, "init");
	CHECK(L.nblocks == 3 && L.nstats == 9, "linear sizes %d %d", L.nblocks, L.nstats);
	dpb_layout_label(&L, 0, names, buf, sizeof(buf));
	CHECK(strcmp(buf, "age") == 0, "label0 %s", buf);
	dpb_layout_entry(&L, 0, &e);
	CHECK(e.i == 0 && e.j == 1 && fabs(e.weight - M_SQRT2) < 1e-15, "entry0");
	dpb_layout_label(&L, 2, names, buf, sizeof(buf));
	CHECK(strcmp(buf, "age^2") == 0, "label2 %s", buf);
	dpb_layout_label(&L, 3, names, buf, sizeof(buf));
	CHECK(strcmp(buf, "age*bmi") == 0, "label3 %s", buf);
	dpb_layout_label(&L, 5, names, buf, sizeof(buf));
	CHECK(strcmp(buf, "y") == 0, "label5 %s", buf);
	dpb_layout_label(&L, 7, NULL, buf, sizeof(buf));
	CHECK(strcmp(buf, "y*x2") == 0, "label7 %s", buf);
	dpb_layout_label(&L, 8, names, buf, sizeof(buf));
	CHECK(strcmp(buf, "y^2") == 0, "label8 %s", buf);

	/* logistic without intercept, d = 4: paper Figure 2 minus the constant */
	CHECK(dpb_layout_init(&L, DPB_MODEL_LOGISTIC, 4, 0) == DPB_OK, "init");
	CHECK(L.nstats == 4 + 10, "logistic sizes %d", L.nstats);

	/* poisson: with intercept 2 blocks, without 4 */
	CHECK(dpb_layout_init(&L, DPB_MODEL_POISSON, 3, 1) == DPB_OK, "init");
	CHECK(L.nblocks == 2 && L.nstats == 9 + 10, "poisson ic sizes %d", L.nstats);
	dpb_layout_label(&L, L.start[1], NULL, buf, sizeof(buf));
	CHECK(strcmp(buf, "y") == 0, "poisson y label %s", buf);
	CHECK(dpb_layout_init(&L, DPB_MODEL_POISSON, 3, 0) == DPB_OK, "init");
	CHECK(L.nblocks == 4 && L.nstats == 3 + 6 + 3 + 6, "poisson sizes %d", L.nstats);

	/* every entry of every layout is described consistently */
	for (ic = 0; ic <= 1; ic++)
		for (d = 1; d <= 7; d++)
		{
			int			m;

			for (m = DPB_MODEL_LINEAR; m <= DPB_MODEL_POISSON; m++)
			{
				int			bad = 0;

				dpb_layout_init(&L, (dpb_model) m, d, ic);
				for (k = 0; k < L.nstats; k++)
				{
					dpb_layout_entry(&L, k, &e);
					if (e.block < 0 || e.block >= L.nblocks ||
						k < L.start[e.block] ||
						k >= L.start[e.block] + L.len[e.block])
						bad++;
					if (e.i >= L.p || e.j >= L.p || (e.j >= 0 && e.j < e.i))
						bad++;
					/* the constant monomial is never released */
					if (e.ypow == 0 && ic && e.i == 0 && e.j == 0)
						bad++;
				}
				CHECK(bad == 0, "layout m=%d d=%d ic=%d: %d bad entries", m, d, ic, bad);
			}
		}

	/* add/remove: the count block ends the model's blocks, before x3/x4 */
	{
		char		lab[64];

		dpb_layout_init(&L, DPB_MODEL_LINEAR, 2, 1);
		CHECK(dpb_layout_count_index(&L) == -1 && !L.add_remove, "no count under replace");
		CHECK(dpb_layout_add_count(&L) == DPB_OK && dpb_layout_add_xmoments(&L) == DPB_OK,
			  "count, then x moments");
		CHECK(L.add_remove && L.nmodel_blocks == 4 && L.kind[3] == DPB_BLK_COUNT &&
			  L.len[3] == 1 && L.nmodel == 10 && L.kind[4] == DPB_BLK_X3 &&
			  dpb_layout_count_index(&L) == 9, "count block position");
		dpb_layout_entry(&L, 9, &e);
		CHECK(e.block == 3 && e.ypow == 0 && e.i < 0 && e.j < 0 && e.k < 0 && e.weight == 1.0,
			  "count entry is the monomial 1");
		dpb_layout_label(&L, 9, NULL, lab, sizeof(lab));
		CHECK(strcmp(lab, "n") == 0 && strcmp(dpb_block_kind_name(DPB_BLK_COUNT), "count") == 0,
			  "count label %s", lab);
		dpb_layout_init(&L, DPB_MODEL_POISSON, 3, 0);
		CHECK(dpb_layout_add_count(&L) == DPB_OK && L.nblocks == DPB_MAX_MODEL_BLOCKS,
			  "poisson without intercept: 5 model blocks");
	}

	CHECK(dpb_layout_init(&L, DPB_MODEL_LINEAR, 0, 1) == DPB_EINVAL, "d=0");
	CHECK(dpb_layout_init(&L, DPB_MODEL_LINEAR, DPB_MAX_D + 1, 1) == DPB_EINVAL, "d>max");
}
