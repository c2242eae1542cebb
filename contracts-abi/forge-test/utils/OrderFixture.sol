// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {AdversarialRoutes} from "./AdversarialRoutes.sol";
import {Fixture} from "./Fixture.sol";
import {Vm} from "./Vm.sol";
import {BlacklistToken, FeeOnTransferToken, MintableToken, NoBoolToken} from "../mocks/Tokens.sol";
import {ContractMaker} from "../mocks/ContractMaker.sol";
import {MockAggregator} from "../mocks/MockAggregator.sol";
import {Hop, Path} from "../../src/RouteTypes.sol";
import {OrderExecutor} from "../../src/OrderExecutor.sol";
import {PriceOracle} from "../../src/PriceOracle.sol";

/// @notice The OrderExecutor on Uniswap V2 pairs and a StableSwap pool priced like its USD feeds, with EOA makers,
///         ERC-1271 wallet makers (honest and misbehaving), a bystander who approved but never signed, and an
///         executor that owns pools of its own token. `executeChecked` runs a batch as the executor and checks
///         every promise of the contract against what happened; a broken one is recorded as a violation.
abstract contract OrderFixture is Fixture {
    address internal constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;
    uint16 internal constant MAX_FEE_BPS = 500;
    uint16 internal constant MAX_DEVIATION_BPS = 500;
    bytes32 internal constant INTEGRATOR_A = keccak256("integrator A");
    bytes32 internal constant INTEGRATOR_B = keccak256("integrator B");
    bytes32 internal constant EXECUTED_TOPIC = keccak256("OrderExecuted(bytes32,address,uint256,uint256,uint256)");
    bytes32 internal constant FAILED_TOPIC = keccak256("OrderFailed(bytes32,address,string)");

    OrderExecutor internal oe;
    /// @dev The price sources the executor reads (its owner, this suite, configures each token's source).
    PriceOracle internal oracle;
    address internal executor;
    address internal feeCollector = address(0xFEEC);

    MintableToken internal dai;
    MintableToken internal usdc;
    NoBoolToken internal noBool;
    FeeOnTransferToken internal fot;
    BlacklistToken internal frozen;
    /// @dev The executor's own token, with pools the executor created at prices of its choosing.
    MintableToken internal evil;
    address internal stableDaiUsdc;

    /// @dev The ERC-20s makers hold (WETH's column counts the native coin too: native payouts may fall back to WETH).
    address[] internal tokens;
    mapping(address => MockAggregator) internal feedOf;

    struct Pair {
        address tokenIn;
        address tokenOut;
    }

    Pair[] internal pairs;

    address[] internal makers;
    /// @dev The key that signs for a maker: its own (EOA) or its wallet owner's.
    mapping(address => uint256) internal keyOf;
    /// @dev The deviation a maker signs with.
    mapping(address => uint16) internal devOf;
    address internal bystander;
    ContractMaker internal wallet;
    ContractMaker internal gasBurner;
    ContractMaker internal acceptAll;
    ContractMaker internal flooder;

    /// @dev What each maker signed: keccak(maker, tokenIn, tokenOut, integrator, deviation, fee cap) => signature.
    mapping(bytes32 => bytes) internal signatureOf;
    bytes32[] internal signedAuths;

    // ---- ghosts ----
    mapping(address => mapping(bytes32 => bool)) internal ghostExecuted;
    /// @dev Execution indices some execution spent, as the events of the batches said.
    mapping(uint256 => bool) internal ghostIndexSpent;
    /// @dev keccak(maker, id) => the last failure reason / the amount paid, as the events of the last batch said.
    mapping(bytes32 => string) internal failureOf;
    mapping(bytes32 => uint256) internal paidOf;
    uint256 public executedCount;
    uint256 public failedCount;
    uint256 public batches;
    uint256 public violations;
    string public firstViolation;

    /// @dev Tokens the suite prices through a Uniswap V3 pool instead of their feed (no independent feed check).
    mapping(address => bool) internal poolPriced;

    function _deployOrderWorld(bool withV3) internal {
        executor = vm.addr(0xE0E0);
        _deployWeth();
        _deployV2();
        _deployStableSwap();
        if (withV3) _deployV3();
        // 30-minute TWAP (at least 1 minute of history), feed answers at most a day old.
        oracle = new PriceOracle(
            address(this), address(weth), venues.uniswapV3Factory, PriceOracle.OracleConfig(1800, 60, 1 days)
        );
        oe = new OrderExecutor(
            address(this), address(weth), venues, feeCollector, MAX_FEE_BPS, oracle, MAX_DEVIATION_BPS
        );
        oe.setExecutor(executor, true);
        vm.label(address(oe), "OrderExecutor");
        vm.label(address(oracle), "PriceOracle");
        vm.label(executor, "executor");

        dai = new MintableToken("DAI", 18);
        usdc = new MintableToken("USDC", 6);
        noBool = new NoBoolToken();
        fot = new FeeOnTransferToken("FOT", 100);
        frozen = new BlacklistToken("FRZ", 6);
        evil = new MintableToken("EVIL", 18);
        address[6] memory list =
            [address(dai), address(usdc), address(weth), address(noBool), address(fot), address(frozen)];
        int256[6] memory usd = [int256(1e8), 1e8, 3000e8, 1e8, 1e8, 1e8];
        for (uint256 i; i < list.length; ++i) {
            tokens.push(list[i]);
            feedOf[tokens[i]] = new MockAggregator(usd[i], 8);
            oracle.setOracle(tokens[i], oracle.ORACLE_USD_FEED(), address(feedOf[tokens[i]]));
        }
        _seedPools();
        _definePairs();
        _createMakers();
    }

    function _seedPools() internal {
        address factory = venues.uniswapV2Factory;
        _v2Pair(factory, address(dai), address(usdc), 10_000_000e18, 10_000_000e6);
        _v2Pair(factory, address(dai), address(weth), 9_000_000e18, 3_000e18);
        _v2Pair(factory, address(weth), address(usdc), 3_000e18, 9_000_000e6);
        _v2Pair(factory, address(noBool), address(dai), 10_000_000e6, 10_000_000e18);
        _v2Pair(factory, address(fot), address(dai), 10_000_000e18, 10_000_000e18);
        _v2Pair(factory, address(frozen), address(dai), 10_000_000e6, 10_000_000e18);
        stableDaiUsdc = _stablePool(address(dai), address(usdc), 10_000_000e18, 10_000_000e6);
        // The executor's pools (V2 pairs are permissionless: who creates and funds them does not matter): EVIL is
        // worth 1 DAI in its DAI pair but only 0.5 USDC / 0.5 USD of WETH in the others, so DAI -> EVIL -> USDC pays
        // half the market; deep enough that price impact does not hide it.
        _v2Pair(factory, address(evil), address(dai), 10_000_000e18, 10_000_000e18);
        _v2Pair(factory, address(evil), address(usdc), 10_000_000e18, 5_000_000e6);
        _v2Pair(factory, address(evil), address(weth), 9_000_000e18, 1_500e18);
        _v2Pair(factory, address(evil), address(noBool), 10_000_000e18, 5_000_000e6);
    }

    function _definePairs() internal {
        pairs.push(Pair(address(dai), address(usdc)));
        pairs.push(Pair(address(usdc), address(dai)));
        pairs.push(Pair(address(dai), NATIVE));
        pairs.push(Pair(address(weth), address(usdc)));
        pairs.push(Pair(address(usdc), address(weth)));
        pairs.push(Pair(address(noBool), address(dai)));
        pairs.push(Pair(address(dai), address(noBool)));
        pairs.push(Pair(address(frozen), address(dai)));
        pairs.push(Pair(address(dai), address(frozen)));
        pairs.push(Pair(address(fot), address(dai)));
        pairs.push(Pair(address(dai), address(fot)));
    }

    function _createMakers() internal {
        uint16[3] memory devs = [uint16(0), 100, 300];
        for (uint256 i; i < 3; ++i) {
            address maker = vm.addr(0xA1 + i);
            keyOf[maker] = 0xA1 + i;
            devOf[maker] = devs[i];
            makers.push(maker);
        }
        wallet = new ContractMaker(vm.addr(0xB1));
        keyOf[address(wallet)] = 0xB1;
        devOf[address(wallet)] = 200;
        gasBurner = new ContractMaker(vm.addr(0xB2));
        gasBurner.setModes(ContractMaker.SignatureMode.BurnGas, ContractMaker.ReceiveMode.BurnGas);
        keyOf[address(gasBurner)] = 0xB2;
        acceptAll = new ContractMaker(vm.addr(0xB3));
        acceptAll.setModes(ContractMaker.SignatureMode.AcceptAll, ContractMaker.ReceiveMode.Refuse);
        keyOf[address(acceptAll)] = 0xB3;
        flooder = new ContractMaker(vm.addr(0xB4));
        flooder.setModes(ContractMaker.SignatureMode.Flood, ContractMaker.ReceiveMode.Reenter);
        flooder.setReentry(address(oe), abi.encodeCall(OrderExecutor.executeBatch, (new OrderExecutor.Group[](0), 0)));
        keyOf[address(flooder)] = 0xB4;
        makers.push(address(wallet));
        makers.push(address(gasBurner));
        makers.push(address(acceptAll));
        makers.push(address(flooder));
        bystander = vm.addr(0xC1);
        keyOf[bystander] = 0xC1;
        makers.push(bystander);

        for (uint256 m; m < makers.length; ++m) {
            _fundMaker(makers[m]);
            if (makers[m] == bystander) continue;
            for (uint256 p; p < pairs.length; ++p) {
                _signAs(makers[m], pairs[p].tokenIn, pairs[p].tokenOut, INTEGRATOR_A, devOf[makers[m]]);
            }
        }
        // Integrator B: the first maker and the wallet, for DAI -> USDC only.
        _signAs(makers[0], address(dai), address(usdc), INTEGRATOR_B, devOf[makers[0]]);
        _signAs(address(wallet), address(dai), address(usdc), INTEGRATOR_B, devOf[address(wallet)]);
        for (uint256 m; m < makers.length; ++m) {
            vm.label(makers[m], string.concat("maker", vm.toString(m)));
        }
    }

    /// @dev Mints the maker a stock of every token and approves the executor for all of it.
    function _fundMaker(address maker) internal {
        for (uint256 t; t < tokens.length; ++t) {
            address token = tokens[t];
            _mint(token, maker, token == address(weth) ? 1_000e18 : 10 ** _decimals(token) * 1_000_000);
            // Zero first: USDT's shape refuses to change one non-zero allowance into another.
            if (maker.code.length > 0) {
                ContractMaker(payable(maker)).approve(token, address(oe), 0);
                ContractMaker(payable(maker)).approve(token, address(oe), type(uint256).max);
            } else {
                vm.prank(maker);
                (bool ok,) = token.call(abi.encodeWithSelector(IERC20.approve.selector, address(oe), 0));
                require(ok, "approve 0");
                vm.prank(maker);
                _approveMax(token, address(oe));
            }
        }
    }

    function _decimals(address token) internal view returns (uint256) {
        if (token == NATIVE) return 18;
        (bool ok, bytes memory data) = token.staticcall(abi.encodeWithSignature("decimals()"));
        require(ok, "decimals");
        return abi.decode(data, (uint8));
    }

    // ---- signatures ----

    /// @dev The fixture's makers sign the contract's cap as they find it.
    function _authHash(address maker, address tokenIn, address tokenOut, bytes32 integrator, uint16 dev)
        internal
        pure
        returns (bytes32)
    {
        return _authHash(maker, tokenIn, tokenOut, integrator, dev, MAX_FEE_BPS);
    }

    function _authHash(
        address maker,
        address tokenIn,
        address tokenOut,
        bytes32 integrator,
        uint16 dev,
        uint16 feeBps
    ) internal pure returns (bytes32) {
        return keccak256(abi.encode(maker, tokenIn, tokenOut, integrator, dev, feeBps));
    }

    /// @dev The EIP-712 digest, computed here from the documented type and domain (not read from the contract).
    function _digest(
        address maker,
        address tokenIn,
        address tokenOut,
        bytes32 integrator,
        uint16 dev,
        uint16 feeBps
    ) internal view returns (bytes32) {
        bytes32 typeHash = keccak256(
            "PairAuthorization(address maker,address tokenIn,address tokenOut,bytes32 integrator,uint16 maxDeviationBps,uint16 maxFeeBps)"
        );
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("TradeAggregationService"),
                keccak256("1"),
                block.chainid,
                address(oe)
            )
        );
        bytes32 structHash = keccak256(abi.encode(typeHash, maker, tokenIn, tokenOut, integrator, dev, feeBps));
        return keccak256(abi.encodePacked(hex"1901", domain, structHash));
    }

    function _sign(uint256 key, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    /// @dev The maker (or its wallet's owner) signs the authorization with the fixture's cap; recorded as signed.
    function _signAs(address maker, address tokenIn, address tokenOut, bytes32 integrator, uint16 dev)
        internal
        returns (bytes memory signature)
    {
        return _signAs(maker, tokenIn, tokenOut, integrator, dev, MAX_FEE_BPS);
    }

    function _signAs(
        address maker,
        address tokenIn,
        address tokenOut,
        bytes32 integrator,
        uint16 dev,
        uint16 feeBps
    ) internal returns (bytes memory signature) {
        signature = _sign(keyOf[maker], _digest(maker, tokenIn, tokenOut, integrator, dev, feeBps));
        bytes32 auth = _authHash(maker, tokenIn, tokenOut, integrator, dev, feeBps);
        if (signatureOf[auth].length == 0) signedAuths.push(auth);
        signatureOf[auth] = signature;
    }

    /// @dev Whether the maker authorized the pair for the integrator, deviation and fee cap (a wallet that accepts
    ///      any signature authorizes everything: its own choice).
    function _authorized(
        address maker,
        address tokenIn,
        address tokenOut,
        bytes32 integrator,
        uint16 dev,
        uint16 feeBps
    ) internal view returns (bool) {
        if (maker == address(acceptAll) || maker == address(flooder)) return true;
        if (maker == address(wallet) && wallet.signatureMode() == ContractMaker.SignatureMode.AcceptAll) return true;
        return signatureOf[_authHash(maker, tokenIn, tokenOut, integrator, dev, feeBps)].length != 0;
    }

    function _order(
        address maker,
        bytes32 ref,
        bytes32 integrator,
        uint16 dev,
        uint256 amountIn,
        uint256 fee,
        uint256 minAmountOut,
        bytes memory signature
    ) internal pure returns (OrderExecutor.Order memory) {
        return OrderExecutor.Order(
            maker,
            _indexOf(maker, ref, integrator, amountIn, fee, minAmountOut, signature),
            ref,
            integrator,
            dev,
            MAX_FEE_BPS,
            amountIn,
            fee,
            minAmountOut,
            signature
        );
    }

    /// @dev The suite's execution index of an order: derived from what makes it that order (its signature names
    ///      the pair), as the service assigns one per order: the same order built twice is the same order, and two
    ///      orders almost never share one (tests that want them to set it).
    function _indexOf(
        address maker,
        bytes32 ref,
        bytes32 integrator,
        uint256 amountIn,
        uint256 fee,
        uint256 minAmountOut,
        bytes memory signature
    ) internal pure returns (uint64) {
        return uint64(
            uint256(
                keccak256(
                    abi.encode("index", maker, ref, integrator, amountIn, fee, minAmountOut, keccak256(signature))
                )
            )
        );
    }

    /// @dev An order the maker signed, for pair p with integrator A.
    function _signedOrder(address maker, uint256 p, uint256 amountIn, uint256 fee, bytes32 ref)
        internal
        view
        returns (OrderExecutor.Order memory)
    {
        return _order(maker, ref, INTEGRATOR_A, devOf[maker], amountIn, fee, 0, _signatureFor(maker, p));
    }

    function _signatureFor(address maker, uint256 p) internal view returns (bytes memory) {
        return signatureOf[_authHash(maker, pairs[p].tokenIn, pairs[p].tokenOut, INTEGRATOR_A, devOf[maker])];
    }

    function _maxFee(uint256 amountIn) internal pure returns (uint256) {
        return (amountIn * MAX_FEE_BPS) / 10_000;
    }

    // ---- routes ----

    function _v2(address tokenOut) internal pure returns (Hop memory) {
        return Hop(0, tokenOut, 0, address(0), "");
    }

    function _path(Hop memory a) internal pure returns (Path[] memory paths) {
        paths = new Path[](1);
        Hop[] memory hops = new Hop[](1);
        hops[0] = a;
        paths[0] = Path(1, hops);
    }

    function _path(Hop memory a, Hop memory b) internal pure returns (Path[] memory paths) {
        paths = new Path[](1);
        Hop[] memory hops = new Hop[](2);
        (hops[0], hops[1]) = (a, b);
        paths[0] = Path(1, hops);
    }

    /// @dev The market route of a pair (tokenOut NATIVE: through WETH).
    function _honestPaths(Pair memory pair) internal view returns (Path[] memory) {
        address out = pair.tokenOut == NATIVE ? address(weth) : pair.tokenOut;
        if (pair.tokenIn == address(usdc) && out == address(dai)) {
            return _path(Hop(6, out, 0, stableDaiUsdc, ""));
        }
        return _path(_v2(out));
    }

    /// @dev Through the executor's EVIL pools (half the market price, or BadPath where EVIL has no pool).
    function _evilPaths(Pair memory pair) internal view returns (Path[] memory) {
        address out = pair.tokenOut == NATIVE ? address(weth) : pair.tokenOut;
        return _path(_v2(address(evil)), _v2(out));
    }

    function _attackPaths(uint256 seed) internal view returns (Path[] memory) {
        address[] memory outs = new address[](6);
        (outs[0], outs[1], outs[2]) = (address(dai), address(usdc), address(weth));
        (outs[3], outs[4], outs[5]) = (address(evil), bystander, address(oe));
        address[] memory targets = new address[](5);
        (targets[0], targets[1], targets[2]) = (stableDaiUsdc, address(oe), address(dai));
        (targets[3], targets[4]) = (bystander, address(0));
        bytes[] memory datas = new bytes[](3);
        datas[0] = abi.encodeWithSignature("transferFrom(address,address,uint256)", bystander, executor, 1e18);
        datas[1] = abi.encode(int24(60));
        datas[2] = "";
        return AdversarialRoutes.randomPaths(seed, outs, targets, datas);
    }

    /// @dev The executor's bound of a pair as executeBatch reads it: the view's answer, or 0 (no bound) when it
    ///      reverts (a broken source).
    function _boundOrZero(address tokenIn, address tokenOut) internal view returns (uint256) {
        try oe.priceBound(tokenIn, tokenOut) returns (uint256 price) {
            return price;
        } catch {
            return 0;
        }
    }

    // ---- an adversarial executor's batch ----

    /// @dev 1-3 groups of 1-5 orders: mostly valid orders of signed pairs, mixed with wrong integrators,
    ///      deviations, fee caps and signatures, fees above the cap, zero and oversized amounts, reused refs, minimums
    ///      out of reach, routes through the executor's own pools and junk routes.
    function _randomBatch(uint256 seed) internal view returns (OrderExecutor.Group[] memory groups) {
        groups = new OrderExecutor.Group[](1 + (seed % 3));
        for (uint256 g; g < groups.length; ++g) {
            uint256 r = uint256(keccak256(abi.encode(seed, "group", g)));
            Pair memory pair = pairs[r % pairs.length];
            uint256 route = (r >> 8) % 10;
            Path[] memory paths;
            if (route < 6) paths = _honestPaths(pair);
            else if (route < 8) paths = _evilPaths(pair);
            else if (route == 8) paths = _attackPaths(r);
            groups[g].tokenIn = pair.tokenIn;
            groups[g].tokenOut = pair.tokenOut;
            groups[g].paths = paths;
            groups[g].orders = new OrderExecutor.Order[](1 + ((r >> 16) % 5));
            for (uint256 k; k < groups[g].orders.length; ++k) {
                groups[g].orders[k] = _randomOrder(pair, uint256(keccak256(abi.encode(r, k))));
            }
        }
    }

    function _randomOrder(Pair memory pair, uint256 q) internal view returns (OrderExecutor.Order memory o) {
        o.maker = makers[q % makers.length];
        o.integrator = (q >> 8) % 6 == 0 ? INTEGRATOR_B : INTEGRATOR_A;
        uint16[5] memory devs = [uint16(0), 100, 300, 500, 800];
        o.maxDeviationBps = (q >> 16) % 4 == 0 ? devs[(q >> 20) % 5] : devOf[o.maker];
        // Mostly the cap the makers signed; else a claim of another one (only wallets that accept anything pass).
        uint16[3] memory caps = [uint16(0), 100, 1000];
        o.maxFeeBps = (q >> 24) % 8 == 0 ? caps[(q >> 28) % 3] : MAX_FEE_BPS;
        uint256 unit = 10 ** _decimals(pair.tokenIn);
        if (pair.tokenIn == address(weth)) unit /= 3000;
        o.amountIn = (q >> 32) % 30 == 0 ? 0 : (unit * (1 + ((q >> 40) % 200_000))) / 100;
        if ((q >> 64) % 40 == 0) o.amountIn = unit * 10_000_000;
        uint256 cap = _maxFee(o.amountIn);
        o.fee = (q >> 72) % 8 == 0 ? cap + 1 + ((q >> 80) % (cap + 1)) : (cap * ((q >> 80) % 5)) / 4;
        uint256 minChoice = (q >> 96) % 4;
        if (minChoice == 1) o.minAmountOut = 1;
        if (minChoice == 2) o.minAmountOut = type(uint128).max;
        o.ref = bytes32((q >> 104) % 4);
        uint256 sigChoice = (q >> 112) % 10;
        if (sigChoice < 7) {
            // The signature of the cap the makers signed, whatever cap the order claims.
            o.signature = signatureOf[_authHash(o.maker, pair.tokenIn, pair.tokenOut, o.integrator, o.maxDeviationBps)];
        } else if (sigChoice < 9) {
            o.signature = signatureOf[signedAuths[(q >> 120) % signedAuths.length]];
        } else {
            o.signature = abi.encodePacked(bytes32(q), bytes32(q >> 1), uint8(27));
        }
        // Mostly the order's own index; one in four from a few shared ones (spent by other orders, or twice in a batch).
        o.index = (q >> 128) % 4 == 0
            ? uint64((q >> 132) % 16)
            : _indexOf(o.maker, o.ref, o.integrator, o.amountIn, o.fee, o.minAmountOut, o.signature);
    }

    // ---- the checked batch ----

    function _expect(bool ok, string memory what) internal {
        if (ok) return;
        ++violations;
        if (bytes(firstViolation).length == 0) firstViolation = what;
    }

    /// @dev What an account holds of a token column (WETH's column adds the native coin).
    function _held(address account, address token) internal view returns (uint256) {
        if (token == address(weth)) return weth.balanceOf(account) + account.balance;
        return IERC20(token).balanceOf(account);
    }

    function _column(address token) internal view returns (uint256) {
        if (token == NATIVE) token = address(weth);
        for (uint256 t; t < tokens.length; ++t) {
            if (tokens[t] == token) return t;
        }
        revert("unknown token");
    }

    /// @dev Holdings of every maker (rows) then the fee collector (last row), per token column.
    function _holdings() internal view returns (uint256[] memory h) {
        uint256 width = tokens.length;
        h = new uint256[]((makers.length + 1) * width);
        for (uint256 m; m <= makers.length; ++m) {
            address account = m == makers.length ? feeCollector : makers[m];
            for (uint256 t; t < width; ++t) {
                h[m * width + t] = _held(account, tokens[t]);
            }
        }
    }

    function _row(address account) internal view returns (uint256) {
        for (uint256 m; m < makers.length; ++m) {
            if (makers[m] == account) return m;
        }
        revert("unknown maker");
    }

    struct BatchState {
        uint256[] before;
        int256[] expected;
        uint256[] bounds;
        uint256 orders;
        uint256 outcomes;
    }

    /// @dev Runs the batch as the executor; checks the batch did not revert, one outcome per order, every
    ///      execution against its order, each account's balance change against the executions, and that the
    ///      executor keeps nothing. Returns how many orders executed.
    function executeChecked(OrderExecutor.Group[] memory groups, uint256 deadline) internal returns (uint256 executed) {
        return executeCheckedCall(groups, abi.encodeCall(OrderExecutor.executeBatch, (groups, deadline)), gasleft());
    }

    /// @dev executeChecked for `call`, executeBatch's or executeBudgetedBatch's calldata of `groups`, sent with `gas`.
    function executeCheckedCall(OrderExecutor.Group[] memory groups, bytes memory call, uint256 gas)
        internal
        returns (uint256 executed)
    {
        BatchState memory s;
        s.before = _holdings();
        s.expected = new int256[](s.before.length);
        s.bounds = new uint256[](groups.length);
        for (uint256 g; g < groups.length; ++g) {
            s.bounds[g] = _boundOrZero(groups[g].tokenIn, groups[g].tokenOut);
            s.orders += groups[g].orders.length;
        }
        ++batches;
        vm.recordLogs();
        vm.prank(executor);
        (bool ok,) = address(oe).call{gas: gas}(call);
        if (!ok) {
            _expect(false, "the batch reverted");
            return 0;
        }
        Vm.Log[] memory logs = vm.getRecordedLogs();
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != address(oe)) continue;
            bytes32 key =
                logs[i].topics.length == 3 ? keccak256(abi.encode(logs[i].topics[2], logs[i].topics[1])) : bytes32(0);
            if (logs[i].topics[0] == FAILED_TOPIC) {
                ++s.outcomes;
                ++failedCount;
                failureOf[key] = abi.decode(logs[i].data, (string));
            } else if (logs[i].topics[0] == EXECUTED_TOPIC && _persisted(groups, logs, i)) {
                ++s.outcomes;
                ++executed;
                paidOf[key] = _checkExecution(groups, logs[i], s);
            }
        }
        executedCount += executed;
        _expect(s.outcomes == s.orders, "one outcome event per order");
        _checkBalances(s);
        _checkNothingHeld();
    }

    struct Execution {
        bytes32 id;
        address maker;
        uint256 amountIn;
        uint256 fee;
        uint256 amountOut;
    }

    /// @dev vm.recordLogs also records the events of a group's settlement attempts that were undone (an order
    ///      rejected, the group settled again without it, or failed as a whole). An OrderExecuted stands when the
    ///      index of an order with its id is spent now, no later attempt emitted it again (attempts run in order; an
    ///      order executes in one attempt at most), and no later failure of the same id says otherwise (an undone
    ///      attempt's order fails afterwards; only a copy of an executed order fails ALREADY_EXECUTED after it).
    function _persisted(OrderExecutor.Group[] memory groups, Vm.Log[] memory logs, uint256 i)
        internal
        view
        returns (bool)
    {
        bytes32 id = logs[i].topics[1];
        bytes32 maker = logs[i].topics[2];
        for (uint256 j = i + 1; j < logs.length; ++j) {
            if (logs[j].emitter != address(oe) || logs[j].topics[1] != id || logs[j].topics[2] != maker) continue;
            if (logs[j].topics[0] == EXECUTED_TOPIC) return false;
            if (logs[j].topics[0] == FAILED_TOPIC && !_eq(abi.decode(logs[j].data, (string)), "ALREADY_EXECUTED")) {
                return false;
            }
        }
        for (uint256 g; g < groups.length; ++g) {
            for (uint256 k; k < groups[g].orders.length; ++k) {
                if (_idOf(groups[g], groups[g].orders[k]) == id) return oe.isExecuted(groups[g].orders[k].index);
            }
        }
        return false;
    }

    function _eq(string memory a, string memory b) internal pure returns (bool) {
        return keccak256(bytes(a)) == keccak256(bytes(b));
    }

    function _decodeExecuted(Vm.Log memory log) internal pure returns (Execution memory e) {
        e.id = log.topics[1];
        e.maker = address(uint160(uint256(log.topics[2])));
        (e.amountIn, e.fee, e.amountOut) = abi.decode(log.data, (uint256, uint256, uint256));
    }

    function _checkExecution(OrderExecutor.Group[] memory groups, Vm.Log memory log, BatchState memory s)
        internal
        returns (uint256 paid)
    {
        Execution memory e = _decodeExecuted(log);
        _expect(!ghostExecuted[e.maker][e.id], "an order id executed twice");
        ghostExecuted[e.maker][e.id] = true;
        _expect(e.fee <= (e.amountIn * MAX_FEE_BPS) / 10_000, "fee <= floor(amountIn * maxFeeBps / 1e4)");

        // Some order of the batch must match the event (its id binds the pair and the index) and justify it.
        uint256 justifiedBy = type(uint256).max;
        uint64 index;
        for (uint256 g; g < groups.length && justifiedBy == type(uint256).max; ++g) {
            for (uint256 k; k < groups[g].orders.length; ++k) {
                if (_justifies(groups[g], groups[g].orders[k], e, s.bounds[g])) {
                    (justifiedBy, index) = (g, groups[g].orders[k].index);
                    break;
                }
            }
        }
        _expect(justifiedBy != type(uint256).max, "an execution no signed order within its minimum and bound explains");
        if (justifiedBy == type(uint256).max) return e.amountOut;
        _expect(!ghostIndexSpent[index], "an execution index spent twice");
        ghostIndexSpent[index] = true;

        (address tokenIn, address tokenOut) = (groups[justifiedBy].tokenIn, groups[justifiedBy].tokenOut);
        uint256 width = tokens.length;
        uint256 row = _row(e.maker) * width;
        s.expected[row + _column(tokenIn)] -= int256(e.amountIn + e.fee);
        s.expected[row + _column(tokenOut)] += int256(e.amountOut);
        s.expected[makers.length * width + _column(tokenIn)] += int256(e.fee);
        return e.amountOut;
    }

    function _justifies(
        OrderExecutor.Group memory g,
        OrderExecutor.Order memory o,
        Execution memory e,
        uint256 boundX128
    ) internal view returns (bool) {
        (address tokenIn, address tokenOut) = (g.tokenIn, g.tokenOut);
        bytes32 expectedId =
            keccak256(abi.encode(o.maker, tokenIn, tokenOut, o.integrator, o.ref, o.amountIn, uint256(o.index)));
        if (expectedId != e.id || o.maker != e.maker || o.fee != e.fee || o.amountIn != e.amountIn) return false;
        if (!_authorized(o.maker, tokenIn, tokenOut, o.integrator, o.maxDeviationBps, o.maxFeeBps)) return false;
        // Never more fee than the maker's signed cap allows, whatever the contract's cap is.
        if (e.fee > (o.amountIn / 10_000) * o.maxFeeBps + ((o.amountIn % 10_000) * o.maxFeeBps) / 10_000) return false;
        if (e.amountOut < o.minAmountOut || boundX128 == 0) return false;
        if (e.amountOut < oe.minimumAtBound(o.amountIn, boundX128, o.maxDeviationBps)) return false;
        // And against the feeds directly (the contract's Q128 rounding aside).
        uint256 fair = _feedMinimum(tokenIn, tokenOut, o.amountIn, o.maxDeviationBps);
        return e.amountOut + 2 + fair / 1e12 >= fair;
    }

    /// @dev amountIn x (USD price in / USD price out) x (1e4 - deviation) / 1e4 in base units, from the feeds.
    function _feedMinimum(address tokenIn, address tokenOut, uint256 amountIn, uint16 makerDev)
        internal
        view
        returns (uint256)
    {
        address a = tokenIn == NATIVE ? address(weth) : tokenIn;
        address b = tokenOut == NATIVE ? address(weth) : tokenOut;
        if (poolPriced[a] || poolPriced[b]) return 0;
        uint256 deviation = makerDev != 0 && makerDev < MAX_DEVIATION_BPS ? makerDev : MAX_DEVIATION_BPS;
        if (a == b) return (amountIn * (10_000 - deviation)) / 10_000;
        uint256 priceIn = uint256(feedOf[a].answer());
        uint256 priceOut = uint256(feedOf[b].answer());
        uint256 value = (amountIn * priceIn * 10 ** _decimals(b)) / (priceOut * 10 ** _decimals(a));
        return (value * (10_000 - deviation)) / 10_000;
    }

    function _checkBalances(BatchState memory s) internal {
        uint256[] memory afterwards = _holdings();
        for (uint256 i; i < afterwards.length; ++i) {
            if (int256(afterwards[i]) - int256(s.before[i]) != s.expected[i]) {
                _expect(false, "a balance moved other than the executions say (maker or fee collector)");
                return;
            }
        }
    }

    function _checkNothingHeld() internal {
        _expect(address(oe).balance == 0, "executor contract holds native coin");
        for (uint256 t; t < tokens.length; ++t) {
            _expect(IERC20(tokens[t]).balanceOf(address(oe)) == 0, "executor contract holds a token");
        }
        _expect(evil.balanceOf(address(oe)) == 0, "executor contract holds EVIL");
        address[] memory targets = new address[](2);
        (targets[0], targets[1]) = (stableDaiUsdc, venues.uniswapV2Factory);
        for (uint256 t; t < tokens.length; ++t) {
            for (uint256 j; j < targets.length; ++j) {
                _expect(
                    IERC20(tokens[t]).allowance(address(oe), targets[j]) == 0, "executor contract left an allowance"
                );
            }
        }
    }

    function _idOf(OrderExecutor.Group memory g, OrderExecutor.Order memory o) internal pure returns (bytes32) {
        return keccak256(abi.encode(o.maker, g.tokenIn, g.tokenOut, o.integrator, o.ref, o.amountIn, uint256(o.index)));
    }

    /// @dev The failure reason of the group's k-th order in the last batch ("" if none was emitted).
    function _failure(OrderExecutor.Group memory g, uint256 k) internal view returns (string memory) {
        return failureOf[keccak256(abi.encode(g.orders[k].maker, _idOf(g, g.orders[k])))];
    }

    /// @dev The group's k-th order executed: its index is spent and an execution of its id stood (the index alone
    ///      could have been spent by another order).
    function _executed(OrderExecutor.Group memory g, uint256 k) internal view returns (bool) {
        return oe.isExecuted(g.orders[k].index) && ghostExecuted[g.orders[k].maker][_idOf(g, g.orders[k])];
    }

    function _paid(OrderExecutor.Group memory g, uint256 k) internal view returns (uint256) {
        return paidOf[keccak256(abi.encode(g.orders[k].maker, _idOf(g, g.orders[k])))];
    }

    function _one(OrderExecutor.Group memory g) internal pure returns (OrderExecutor.Group[] memory groups) {
        groups = new OrderExecutor.Group[](1);
        groups[0] = g;
    }

    function _assertNoViolation() internal view {
        vm.assertEq(violations, 0, firstViolation);
    }
}
